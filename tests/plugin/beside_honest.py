"""A hostile run graded beside an honest one, and the honest one graded alone to compare with.

The suite is the definition suite's shell-built `game`, whose steps (the test's `build` and
`typecheck`) may run a script of the run's own first (what a produced build may do); the runs
are the hostile one (with its scripts) then `honest`, each a page and its run.toml. A test
grades the honest run alone, then both together, and reads each run's items from results.json.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from definition_suite import GAME
from definition_suite import write_definition_suite
from test_definition_runs import game_definition
from test_definition_runs import write

SUITE = Path("suite")
ARGS = ("-p", "no:cacheprovider", "-p", "no:faulthandler", f"--tcab-suite={SUITE}", "--tcab-out=out",
        "--tcab-build-timeout=60")
HONEST = "honest"


def sweep(root: Path, *, build: str, typecheck: str, hostile: str | None = None,
          scripts: Mapping[str, str] | None = None) -> list[str]:
    """The suite under `root` and the runs `hostile` (with its `scripts`, when given) then
    `honest`; returns their `--tcab-run` options."""
    write_definition_suite(root / SUITE)
    write(root / SUITE, {GAME: game_definition(typecheck, build=build)})
    names = [hostile, HONEST] if hostile else [HONEST]
    for name in names:
        write(root / "runs" / name, {Path(".tcab/run.toml"): 'case = "game"\nengine = "none"\n',
                                     Path("index.html"): "<!doctype html><title>game</title>\n"})
    if hostile:
        write(root / "runs" / hostile, {Path(name): text for name, text in (scripts or {}).items()})
    return [f"--tcab-run={root / 'runs' / name}" for name in names]


def grade(pytester: pytest.Pytester, root: Path, *args: str) -> pytest.RunResult:
    """A session in `root` (its working folder) with `args`, in a process of its own."""
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        return pytester.run(sys.executable, "-m", "pytest", *ARGS, *args, timeout=300)


def results(root: Path) -> dict[str, dict[str, Any]]:
    """Each run of the session's results.json, by name."""
    return {run["run"]: run for run in json.loads((root / "out/results.json").read_text())["runs"]}


def outcomes(root: Path) -> dict[str, dict[str, object]]:
    """Each run of the session's results.json: why it was not graded, and its items' outcomes."""
    return {name: {"not_graded": [item["not_graded"] for item in run["items"] if item.get("not_graded")],
                   "items": {item["id"]: item["outcome"] for item in run["items"]}}
            for name, run in results(root).items()}
