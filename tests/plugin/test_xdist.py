"""Under pytest-xdist the workers share nothing but reports: results.json must still be whole."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_tcab.run.browser.discovery import NO_BROWSER_REASON
from pytest_tcab.run.browser.discovery import find_chromium

RUN = "example-suite/runs/carom-base"


def test_author_mode_under_xdist(pytester: pytest.Pytester, example_suite: Path) -> None:
    result = pytester.runpytest_subprocess("--tcab-suite=example-suite", "-n", "2", "-p", "xdist")
    assert result.ret == pytest.ExitCode.OK
    assert result.parseoutcomes()["passed"] >= 80


@pytest.mark.browser
@pytest.mark.skipif(find_chromium(None) is None, reason=NO_BROWSER_REASON)
def test_a_run_split_across_workers_writes_one_whole_results_file(
    pytester: pytest.Pytester, example_suite: Path
) -> None:
    result = pytester.runpytest_subprocess(
        "--tcab-suite=example-suite", f"--tcab-run={RUN}", "--tcab-out=out", "-n", "2", "-p", "xdist"
    )
    result.assert_outcomes(passed=6, failed=1, skipped=1)
    (run,) = json.loads((pytester.path / "out/results.json").read_text())["runs"]
    outcomes = {item["nodeid"].rpartition("::")[2]: item["outcome"] for item in run["items"]}
    assert outcomes == {
        "build": "passed", "proof[title]": "passed", "proof[gameplay]": "skipped",
        "check[title]": "passed", "check[gameplay]": "passed",
        "validate[spin.stationary]": "failed", "validate[spin.moving]": "passed", "validate[scoring.point]": "passed",
    }
    # The scored part is computed by the controller from the workers' reports, as in one process.
    assert (run["score"]["earned"], run["score"]["available"], run["score"]["declared"]) == (3.0, 4.0, 6.0)
    assert (pytester.path / "out/report.html").is_file()
