"""A build's processes are capped (`--tcab-build-processes`): a build or toolchain step that forks
3,000 processes fails its own run, naming the cap and how it was held, and the next run is graded
as if it had never been. Real processes, in real sessions."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from definition_suite import GAME
from definition_suite import write_definition_suite
from test_definition_runs import game_definition
from test_definition_runs import write

from pytest_tcab.run.sandbox.cgroup import find_parent
from pytest_tcab.run.sandbox.sandbox import PROCESS_SCOPES

SUITE = Path("suite")
ARGS = ("-p", "no:cacheprovider", "-p", "no:faulthandler", f"--tcab-suite={SUITE}", "--tcab-out=out",
        "--tcab-build-timeout=60")
BUILD = "if [ -f build.sh ]; then bash build.sh; fi; mkdir -p dist && cp index.html dist/"
TYPECHECK = "if [ -f typecheck.sh ]; then bash typecheck.sh; fi; test -f dist/index.html && echo types ok"
"""The case's steps: a run's own script first, where it has one (what a produced build may do)."""
BOMB = "for i in $(seq 3000); do sleep 3 & done; wait\n"
"""3,000 processes, each `sleep 3`, then the step goes on as an honest one would."""


def sweep(root: Path, bomb_in: str | None) -> list[str]:
    """The suite with the shell-built definition `game`, and the runs `bomb` (forking in the
    step `bomb_in`, when given) then `honest`."""
    write_definition_suite(root / SUITE)
    write(root / SUITE, {GAME: game_definition(TYPECHECK, build=BUILD)})
    names = ["bomb", "honest"] if bomb_in else ["honest"]
    for name in names:
        write(root / "runs" / name, {Path(".tcab/run.toml"): 'case = "game"\nengine = "none"\n',
                                     Path("index.html"): "<!doctype html><title>game</title>\n"})
    if bomb_in:
        write(root / "runs/bomb", {Path(f"{bomb_in}.sh"): BOMB})
    return [f"--tcab-run={root / 'runs' / name}" for name in names]


def runs(root: Path) -> dict[str, dict[str, object]]:
    found = {}
    data = json.loads((root / "out/results.json").read_text())
    for run in data["runs"]:
        why = [item["not_graded"] for item in run["items"] if item.get("not_graded")]
        found[run["run"]] = {"not_graded": why, "items": {item["id"]: item["outcome"] for item in run["items"]}}
    return found


NO_PIDS_CGROUP = """
import pytest_tcab.run.sandbox.sandbox as sandbox

_found = sandbox.find_parent
sandbox.find_parent = lambda controller="memory": None if controller == "pids" else _found(controller)
"""
"""A conftest for the graded session: as on a host that gives the grader no pids cgroup."""


def mechanism(fallback: bool) -> str:
    if not fallback and find_parent("pids") is not None:
        return "pids.max"
    if os.geteuid() == 0:
        return "RLIMIT_NPROC as nobody"
    return "RLIMIT_NPROC"


@pytest.mark.parametrize(("step", "fallback"), [("build", False), ("typecheck", False), ("build", True)],
                         ids=["build", "typecheck", "build-without-pids-cgroup"])
def test_a_step_that_forks_3000_processes_fails_alone_and_the_next_run_passes_as_alone(
        pytester: pytest.Pytester, step: str, fallback: bool) -> None:
    by = mechanism(fallback)
    alone = pytester.mkdir("alone")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(alone)
        pytester.run(sys.executable, "-m", "pytest", *ARGS, *sweep(alone, None), timeout=300)
    shared = pytester.mkdir("shared")
    if fallback:
        (shared / "conftest.py").write_text(NO_PIDS_CGROUP)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(shared)
        done = pytester.run(sys.executable, "-m", "pytest", *ARGS, *sweep(shared, step), timeout=300)
    found = runs(shared)
    assert found["bomb"]["not_graded"] == [], found["bomb"]
    assert found["bomb"]["items"].get(step) == "failed", found["bomb"]["items"]
    done.stdout.fnmatch_lines([f"*{step} failed: `*` reached its process cap of 512 ({PROCESS_SCOPES[by]}, "
                               "--tcab-build-processes): *",
                               f"*process cap: 512, {PROCESS_SCOPES[by]}*"])
    assert found["honest"] == runs(alone)["honest"]
    assert "failed" not in found["honest"]["items"].values(), found["honest"]
    data = json.loads((shared / "out/results.json").read_text())
    assert (data["sandbox"]["process_cap"], data["sandbox"]["process_cap_by"]) == (512, by)
    bomb = next(run for run in data["runs"] if run["run"] == "bomb")
    record = next(entry for entry in bomb["items"] if entry["id"] == step)
    steps = record["steps"] if step == "build" else [record]
    assert steps[-1]["process_cap_by"] == by and steps[-1]["over_process_cap"] is True, steps[-1]
