"""`--tcab-media`: the stills, clips and record passes of every verdict, of failed ones, or of none;
the verdicts decided alike in every mode, and each run's results.json saying which it had."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

# pytester's in-process runs drop the modules first imported inside them, and Playwright cannot be
# imported afresh in one process: it is loaded here and kept.
import playwright.sync_api  # noqa: F401
import pytest

from pytest_tcab.run.browser.discovery import NO_BROWSER_REASON
from pytest_tcab.run.browser.discovery import find_chromium
from tests.validation import gauge_project

pytestmark = [pytest.mark.browser, pytest.mark.skipif(find_chromium(None) is None, reason=NO_BROWSER_REASON)]


def graded(pytester: pytest.Pytester, mode: str) -> dict[str, Any]:
    out = f"out-{mode}"
    pytester.runpytest("-p", "no:cacheprovider", "--tcab-suite=suite", "--tcab-run=game", f"--tcab-out={out}",
                       f"--tcab-media={mode}", "-k", "counts or zero or doubles")
    (run,) = json.loads((pytester.path / out / "results.json").read_text())["runs"]
    return run  # type: ignore[no-any-return]


def filmed(run: dict[str, Any]) -> dict[str, list[str]]:
    """Per verdict, the outputs it has a medium of, and that the medium is on disk."""
    found = {}
    for item in run["items"]:
        if item["kind"] == "validate":
            paths = [entry["path"] for entry in item["media"] if entry["path"]]
            assert all(Path(path).is_file() for path in paths)
            found[item["id"]] = sorted(entry["output"] for entry in item["media"] if entry["path"])
    return found


def test_media_modes_decide_alike_and_film_what_they_say(pytester: pytest.Pytester) -> None:
    gauge_project(pytester.path)
    runs = {mode: graded(pytester, mode) for mode in ("all", "failed", "none")}
    verdicts = {mode: {item["id"]: item["outcome"] for item in run["items"]} for mode, run in runs.items()}
    assert verdicts["all"] == verdicts["failed"] == verdicts["none"]
    assert verdicts["all"]["counts"] == "passed" and verdicts["all"]["doubles"] == "failed"
    assert {mode: run["media"] for mode, run in runs.items()} == {"all": "all", "failed": "failed", "none": "none"}
    everything = filmed(runs["all"])
    assert everything["counts"]  # a passed verdict's still and clip, in the default mode
    assert filmed(runs["failed"])["counts"] == []  # a passed verdict skips its record pass
    assert all(outputs == [] for outputs in filmed(runs["none"]).values())
