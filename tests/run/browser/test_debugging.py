"""Debugging browser items as a user does: traces, the page on failure, the mockup cache, the
debugging options and their ini twins, and pytest-playwright's options beside ours."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import playwright.sync_api  # noqa: F401  (loaded once for pytester's in-process runs: see test_checks)
import pytest

import pytest_tcab.run.browser.imagediff  # noqa: F401
from pytest_tcab.run.browser.item import debug_options
from pytest_tcab.run.browser.session import NO_DISPLAY
from tests.run.browser.test_checks import MANIFEST
from tests.run.browser.test_checks import edit
from tests.run.browser.test_checks import lines
from tests.run.browser.test_checks import project

pytestmark = pytest.mark.browser

BROKEN_PLAY = ('op = "settle"', 'op = "freeze"')
"""Makes `check[play]` fail (its handle has no `freeze`) while `check[title]` passes."""

FAKE_PYTEST_PLAYWRIGHT = '''
def pytest_addoption(parser):
    """pytest-playwright's options, as its plugin registers them."""
    group = parser.getgroup("playwright", "Playwright")
    group.addoption("--browser", action="append", default=[], choices=["chromium", "firefox", "webkit"])
    group.addoption("--headed", action="store_true", default=False)
    group.addoption("--browser-channel", default=None)
    group.addoption("--slowmo", default=0, type=int)
    group.addoption("--device", default=None)
    group.addoption("--output", default="test-results")
    group.addoption("--tracing", default="off", choices=["on", "off", "retain-on-failure"])
    group.addoption("--video", default="off", choices=["on", "off", "retain-on-failure"])
    group.addoption("--screenshot", default="off", choices=["on", "off", "only-on-failure"])
    group.addoption("--full-page-screenshot", action="store_true", default=False)
'''


def run(pytester: pytest.Pytester, *args: str, cache: bool = False) -> pytest.RunResult:
    options = ("--tcab-suite=suite", "--tcab-run=good", "--tcab-out=out", "-W", "always::pytest.PytestWarning",
               "-p", "no:benchmark")  # our warning shown, not raised; pytest-benchmark's under xdist left out
    return pytester.runpytest(*(() if cache else ("-p", "no:cacheprovider")), *options, *args)


def checks(pytester: pytest.Pytester) -> dict[str, dict[str, Any]]:
    data = json.loads((pytester.path / "out/results.json").read_text(encoding="utf-8"))
    return {item["id"]: item for item in data["runs"][0]["items"] if item["kind"] == "check"}


def item_folder(pytester: pytest.Pytester, view: str) -> Path:
    return pytester.path / "out/good/browser" / f"check_{view}"


def assert_trace(path: Path) -> None:
    """A trace `playwright show-trace` opens: a zip with the trace, its network log and the item's title."""
    with zipfile.ZipFile(path) as archive:
        assert {"trace.trace", "trace.network"} <= set(archive.namelist())
        events = archive.read("trace.trace").decode("utf-8")
    assert '"type":"context-options"' in events.replace(" ", "")
    assert "screencast-frame" in events or "frame-snapshot" in events


def test_retain_on_failure_keeps_the_trace_and_the_page_of_the_failed_item_only(pytester: pytest.Pytester) -> None:
    project(pytester, "good")
    edit(pytester.path / MANIFEST, *BROKEN_PLAY)
    pytester.makeini("[pytest]\ntcab_tracing = retain-on-failure\n")
    result = run(pytester)
    result.assert_outcomes(passed=2, failed=1, skipped=1)
    recorded = checks(pytester)
    play = item_folder(pytester, "play")
    assert recorded["play"]["trace"] == str(play / "trace.zip")
    assert_trace(play / "trace.zip")
    assert recorded["play"]["failure_screenshot"] == str(play / "failure.png")
    assert (play / "failure.png").read_bytes().startswith(b"\x89PNG")
    assert "trace" not in recorded["title"] and "failure_screenshot" not in recorded["title"]
    assert not item_folder(pytester, "title").exists()
    report = (pytester.path / "out/report.html").read_text(encoding="utf-8")
    assert '<a href="good/browser/check_play/trace.zip">' in report
    assert '<img src="good/browser/check_play/failure.png"' in report


def test_mockups_render_once_per_content_across_sessions(pytester: pytest.Pytester) -> None:
    project(pytester, "good")
    first = run(pytester, cache=True)
    first.assert_outcomes(passed=3, skipped=1)
    assert {view: item["baseline_cache"] for view, item in checks(pytester).items()} == {
        "title": "rendered", "play": "rendered"}
    run(pytester, cache=True).assert_outcomes(passed=3, skipped=1)
    assert {view: item["baseline_cache"] for view, item in checks(pytester).items()} == {"title": "hit", "play": "hit"}
    edit(pytester.path / MANIFEST.parent / "reference/play.html", "left: 400px", "left: 420px")
    run(pytester, cache=True).assert_outcomes(passed=3, skipped=1)
    recorded = checks(pytester)
    assert recorded["play"]["baseline_cache"] == "rendered"  # the changed mockup, drawn anew
    assert recorded["play"]["differing_pixels"] > 0


def test_pytest_playwright_tracing_is_honoured_and_its_other_options_warned_about(pytester: pytest.Pytester) -> None:
    project(pytester, "good")
    pytester.makeconftest(FAKE_PYTEST_PLAYWRIGHT)
    result = run(pytester, "--tracing=on", "--video=on", "--browser=chromium", "--device=Pixel 5")
    result.assert_outcomes(passed=3, skipped=1)
    assert_trace(item_folder(pytester, "title") / "trace.zip")
    result.stdout.fnmatch_lines(lines(
        "*pytest-playwright's --device, --video do not apply to tcab items:*"))
    assert result.stdout.str().count("do not apply to tcab items") == 1
    run(pytester, "--tracing=on", "--tcab-tracing=off").assert_outcomes(passed=3, skipped=1)  # ours win
    assert "trace" not in checks(pytester)["title"]


def test_headed_without_a_display_fails_browser_items_saying_so(pytester: pytest.Pytester,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    project(pytester, "good")
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    result = run(pytester, "--tcab-headed")
    result.assert_outcomes(passed=1, failed=2, skipped=1)
    result.stdout.fnmatch_lines([f"*{NO_DISPLAY}*"])
    assert "Traceback" not in result.stdout.str()


@pytest.mark.skipif(shutil.which("xvfb-run") is None, reason="no xvfb-run (scripts/bootstrap installs xvfb)")
def test_headed_chromium_drives_the_items_on_a_display(pytester: pytest.Pytester) -> None:
    """Headed, slowed down and traced, in a virtual display: the confined browser still reaches its
    display (X11's socket file, which the network namespace leaves alone) and the checks pass."""
    project(pytester, "good")
    pytester.makeini("[pytest]\n")
    done = subprocess.run(["xvfb-run", "-a", sys.executable, "-m", "pytest", "-p", "no:cacheprovider",
                           "--tcab-suite=suite", "--tcab-run=good", "--tcab-out=out", "--tcab-headed",
                           "--tcab-slowmo=20"], cwd=pytester.path, capture_output=True, text=True, timeout=300,
                          check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert {view: item["similarity"] for view, item in checks(pytester).items()} == {"title": 1.0, "play": 1.0}


def test_debugging_options_their_ini_twins_and_pytest_playwright_defaults(pytester: pytest.Pytester) -> None:
    assert debug_options(pytester.parseconfigure("--tcab-slowmo=50", "--tcab-headed")).slowmo == 50.0
    pytester.makeini("[pytest]\ntcab_slowmo = 20\ntcab_headed = true\ntcab_tracing = on\n")
    options = debug_options(pytester.parseconfigure())
    assert (options.tracing, options.headed, options.slowmo) == ("on", True, 20.0)
    pytester.makeini("[pytest]\n")
    pytester.makeconftest(FAKE_PYTEST_PLAYWRIGHT)
    options = debug_options(pytester.parseconfigure("--tracing=retain-on-failure", "--headed", "--slowmo=30"))
    assert (options.tracing, options.headed, options.slowmo) == ("retain-on-failure", True, 30.0)
    options = debug_options(pytester.parseconfigure("--slowmo=30", "--tcab-slowmo=0", "--tcab-tracing=off"))
    assert (options.tracing, options.slowmo) == ("off", 0.0)
    result = pytester.runpytest("--tcab-tracing=sometimes")
    result.stderr.fnmatch_lines(["*--tcab-tracing*'sometimes' is not one of off, on, retain-on-failure*"])
