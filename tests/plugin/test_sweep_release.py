"""A finished run lets go: once its last item ends, its build folder is removed and its server stops,
before the next run starts (observed through `pytest_tcab_run_finished` itself, in real processes)."""

from __future__ import annotations

import json
import shutil

# pytester's in-process runs drop the modules first imported inside them, and numpy, Pillow and
# Playwright cannot be imported afresh in one process: they are loaded here and kept.
import numpy  # noqa: F401
import PIL.Image  # noqa: F401
import playwright.sync_api  # noqa: F401
import pytest
from sweep_suite import ARGS
from sweep_suite import observed
from sweep_suite import write_sweep_suite

from pytest_tcab.run.browser.discovery import NO_BROWSER_REASON
from pytest_tcab.run.browser.discovery import find_chromium

OBSERVER = '''
import json
import os
import socket
import tempfile
from pathlib import Path

import pytest


@pytest.hookimpl(wrapper=True)
def pytest_tcab_run_finished(config, run):
    origin = run.origin
    yield  # every hookimpl has let go by now
    port = int(origin.rsplit(":", 1)[1].strip("/")) if origin else None
    serving = False
    if port is not None:
        with socket.socket() as probe:
            serving = probe.connect_ex(("127.0.0.1", port)) == 0
    scratch = Path(tempfile.gettempdir())
    seen = {"run": run.label, "served": port is not None, "serving": serving,
            "builds": sorted(path.name for path in scratch.glob("tcab-run-*")),
            "copies": sorted(str(path.relative_to(scratch)) for path in scratch.glob("tcab-reporter-*/*"))}
    with open(os.environ["TCAB_RELEASE_LOG"], "a") as log:
        log.write(json.dumps(seen) + "\\n")
'''


@pytest.mark.skipif(find_chromium(None) is None, reason=NO_BROWSER_REASON)
@pytest.mark.browser
def test_a_finished_run_leaves_no_build_folder_and_no_server(pytester: pytest.Pytester,
                                                              monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest,
                                                              ) -> None:
    runs = write_sweep_suite(pytester.path)
    for name in ("good-2", "good-3"):
        shutil.copytree(runs / "good", runs / name)
    scratch, log = observed(pytester, request, monkeypatch, OBSERVER, "TCAB_RELEASE_LOG")
    names = ("good", "game", "good-2", "good-3")
    # One run at a time: with builds begun early (--tcab-concurrency), the next run's folder is there already.
    result = pytester.runpytest_subprocess(*ARGS, *(f"--tcab-run={runs / name}" for name in names), "--tcab-out=out",
                                           "--tcab-concurrency=1")
    result.assert_outcomes(passed=11, skipped=4)
    seen = [json.loads(line) for line in log.read_text().splitlines()]
    assert [entry["run"] for entry in seen] == list(names)
    for entry in seen:
        assert entry["builds"] == [], f"{entry['run']} left its build folder"
        assert not entry["serving"], f"{entry['run']}'s server still listens"
    assert [entry["served"] for entry in seen] == [True, False, True, True]
    assert seen[-1]["copies"] == [], "the last run of each case removed its copy of the reporter-side material"
    assert not list(scratch.glob("tcab-*")), "and the session removed the rest"


SCRATCH_OBSERVER = '''
import json
import os
import tempfile
from pathlib import Path

import pytest


@pytest.hookimpl(wrapper=True)
def pytest_tcab_run_finished(config, run):
    yield
    scratch = Path(tempfile.gettempdir())
    files = {}
    for top in scratch.glob("tcab-*"):
        for folder, dirs, names in os.walk(top):
            for name in names:
                path = os.path.join(folder, name)
                try:
                    files[os.path.relpath(path, scratch)] = os.lstat(path).st_blocks * 512
                except OSError:
                    pass
    with open(os.environ["TCAB_RELEASE_LOG"], "a") as log:
        log.write(json.dumps({"run": run.label, "files": files}) + "\\n")
'''

CHROMIUM_PROFILE = "/playwright_chromiumdev_profile-"
"""The session's browser's profile (Playwright's, in the session's scratch): Chromium's, not a run's."""
CHROMIUM_ONCE = 2**20
"""What Chromium adds to its profile once a session, whatever the runs: its extension cache's
metadata and its databases' journals (its 4 MiB metrics file no longer: `session.METRICS_PLACEHOLDERS`)."""


@pytest.mark.skipif(find_chromium(None) is None, reason=NO_BROWSER_REASON)
@pytest.mark.browser
def test_scratch_does_not_grow_from_run_to_run(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
                                               request: pytest.FixtureRequest) -> None:
    runs = write_sweep_suite(pytester.path)
    names = [f"good-{index}" for index in range(5)]
    for name in names:
        shutil.copytree(runs / "good", runs / name)
    scratch, log = observed(pytester, request, monkeypatch, SCRATCH_OBSERVER, "TCAB_RELEASE_LOG")
    # One run at a time: with builds begun early (--tcab-concurrency), the next run's folder is there already.
    result = pytester.runpytest_subprocess(*ARGS, *(f"--tcab-run={runs / name}" for name in names), "--tcab-out=out",
                                           "--tcab-concurrency=1")
    result.assert_outcomes(passed=15, skipped=5)
    seen = [json.loads(line)["files"] for line in log.read_text().splitlines()]
    # The last run's sample comes after the session's teardown (its browser gone): runs 2 and 4.
    second, fourth = ({path: size for path, size in files.items() if CHROMIUM_PROFILE not in path}
                      for files in (seen[1], seen[3]))
    assert fourth == second, "a finished run leaves nothing behind, not a byte"
    profile = [sum(size for path, size in files.items() if CHROMIUM_PROFILE in path) for files in (seen[1], seen[3])]
    assert profile[1] - profile[0] <= CHROMIUM_ONCE, f"Chromium's profile grew by {profile[1] - profile[0]} bytes"
    assert seen[-1] == {}, "and the session removed it all"


PAGE_ENDINGS = {
    "closes": "setTimeout(() => window.close(), 50);",
    "navigates": "setTimeout(() => { location.href = 'about:blank'; }, 50);",
    "opens": "for (let i = 0; i < 100; i++) window.open(location.href + '?' + i);",
}
"""What a page may do to its own window. Chromium keeps a driven page open past `window.close()`,
and refuses windows opened without a gesture (each of these would open a hundred more): those
two are graded on what stays on screen (their checks may pass); a page that leaves fails."""


@pytest.mark.skipif(find_chromium(None) is None, reason=NO_BROWSER_REASON)
@pytest.mark.browser
@pytest.mark.parametrize("ending", sorted(PAGE_ENDINGS))
def test_a_page_that_ends_itself_fails_its_own_verdicts_and_is_graded(pytester: pytest.Pytester, ending: str) -> None:
    runs = write_sweep_suite(pytester.path)
    shutil.copytree(runs / "good", runs / ending)
    page = (runs / ending / "index.html").read_text()
    (runs / ending / "index.html").write_text(page.replace("<script>", f"<script>\n{PAGE_ENDINGS[ending]}\n", 1))
    # In a process of its own with a bound: a page that could take the browser must not take the grader.
    pytester.runpytest_subprocess(*ARGS, f"--tcab-run={runs / ending}", f"--tcab-run={runs / 'good'}",
                                  "--tcab-out=out", timeout=300)
    rows = {row["run"]: row for row in json.loads((pytester.path / "out/sweep.json").read_text())["runs"]}
    assert rows[ending]["status"] == "graded", rows[ending]
    assert ending != "navigates" or "failed" in rows[ending]["items"].values(), rows[ending]["items"]
    assert rows["good"]["status"] == "graded"
    assert rows["good"]["items"]["check[title]"] == rows["good"]["items"]["check[play]"] == "passed"


REPORT_OBSERVER = '''
import json
import os


def pytest_terminal_summary(terminalreporter):
    kept = [report for reports in terminalreporter.stats.values() for report in reports]
    with open(os.environ["TCAB_RELEASE_LOG"], "a") as log:
        log.write(json.dumps({"kept": len(kept), "with tcab": sum(hasattr(report, "tcab") for report in kept)}) + "\\n")
'''


def test_a_logged_report_lets_go_of_its_tcab_part(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
                                                  request: pytest.FixtureRequest) -> None:
    """pytest keeps every report to the end: what tcab hung on it goes once every hook has read it."""
    runs = write_sweep_suite(pytester.path)
    _, log = observed(pytester, request, monkeypatch, REPORT_OBSERVER, "TCAB_RELEASE_LOG")
    result = pytester.runpytest_subprocess(*ARGS, f"--tcab-run={runs / 'perf'}", f"--tcab-run={runs / 'hero'}",
                                           "--tcab-out=out")
    assert result.ret == 0, result.stdout.str()
    seen = [json.loads(line) for line in log.read_text().splitlines()]
    assert seen[-1]["kept"] > 0 and seen[-1]["with tcab"] == 0, seen[-1]
    # It was read while the reports were logged: every item is on record, with its figures.
    runs = {run["run"]: run for run in json.loads((pytester.path / "out/results.json").read_text())["runs"]}
    assert sorted(runs) == ["hero", "perf"]
    assert all(item["outcome"] == "passed" for run in runs.values() for item in run["items"]), runs
    assert any("fuel" in item for item in runs["perf"]["items"]), runs["perf"]["items"]
    rows = json.loads((pytester.path / "out/sweep.json").read_text())["runs"]
    assert sorted(row["run"] for row in rows) == ["hero", "perf"]
