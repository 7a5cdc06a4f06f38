"""Loading, actions and validation drivers against real Chromium and tiny fixture pages."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from PIL import Image

from pytest_tcab.models.check import Call
from pytest_tcab.models.check import Click
from pytest_tcab.models.check import Hold
from pytest_tcab.models.check import Key
from pytest_tcab.models.check import Wait
from pytest_tcab.run.browser.discovery import BrowserError
from pytest_tcab.run.browser.discovery import ChromiumLocation
from pytest_tcab.run.browser.discovery import find_chromium
from pytest_tcab.run.browser.discovery import playwright_chromium
from pytest_tcab.run.browser.driving import DriveError
from pytest_tcab.run.browser.driving import load
from pytest_tcab.run.browser.driving import perform
from pytest_tcab.run.browser.driving import render_mockup
from pytest_tcab.run.browser.driving import screenshot_png
from pytest_tcab.run.browser.session import BrowserSession
from pytest_tcab.run.judge.runtime import JudgeRuntime
from pytest_tcab.run.judge.scripts import DriverRun
from pytest_tcab.run.judge.scripts import OutputSpec
from pytest_tcab.run.judge.scripts import Script
from pytest_tcab.run.judge.scripts import run_script

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.browser

DRIVERS = Path(__file__).parent / "pages/drivers"
IMAGE = OutputSpec("goal", "image")
VIDEO = OutputSpec("clip", "video")


def drive(
    page: Page,
    pages_url: str,
    judge: JudgeRuntime,
    driver: str,
    tmp_path: Path,
    *,
    outputs: tuple[OutputSpec, ...] = (),
    verdict_ids: tuple[str, ...] = ("scoring",),
    timeout_s: float = 10,
    build: str = "game.html",
) -> DriverRun:
    def open_page() -> Page:
        load(page, pages_url + build, 10_000)
        return page

    script = Script(path=DRIVERS / driver, name=driver, roots={f"{DRIVERS}/": ""}, handle="__game",
                    outputs=outputs, verdict_ids=verdict_ids)
    return run_script(open_page, script, judge, timeout_s, tmp_path, "scoring")


# -- verdicts -----------------------------------------------------------------------------------


def test_passing_driver_reaches_the_handle_every_way(page: Page, pages_url: str, judge: JudgeRuntime,
                                                     tmp_path: Path) -> None:
    run = drive(page, pages_url, judge, "pass.mjs", tmp_path)
    assert run == DriverRun({"scoring": True}, "x=5", {}, None, "verdicts")


def test_failing_driver_keeps_its_notes(page: Page, pages_url: str, judge: JudgeRuntime, tmp_path: Path) -> None:
    run = drive(page, pages_url, judge, "fail.mjs", tmp_path)
    assert run == DriverRun({"scoring": False}, "the ball never crossed the goal", {}, None, "verdicts")


def test_null_verdict_is_left_for_the_reviewer(page: Page, pages_url: str, judge: JudgeRuntime, tmp_path: Path) -> None:
    run = drive(page, pages_url, judge, "null.mjs", tmp_path)
    assert run.error is None
    assert run.verdicts == {"scoring": None}


# -- load-bearing failures ------------------------------------------------------------------------


def test_missing_handle(page: Page, pages_url: str, judge: JudgeRuntime, tmp_path: Path) -> None:
    run = drive(page, pages_url, judge, "pass.mjs", tmp_path, build="nohandle.html")
    assert run.error == "window.__game is undefined: the build does not install its debug API"
    assert run.verdicts == {}


def test_throw_names_the_driver_file_and_line(page: Page, pages_url: str, judge: JudgeRuntime, tmp_path: Path) -> None:
    run = drive(page, pages_url, judge, "throws.mjs", tmp_path)
    assert run.error is not None
    head, *frames = run.error.splitlines()
    assert head == "the driver threw Error: the paddle never moved (paddle: undefined)"
    assert frames and all("throws.mjs:" in frame for frame in frames)
    assert "throws.mjs:5:9" in frames[0]
    assert "127.0.0.1" not in run.error


@pytest.mark.parametrize(
    ("driver", "error"),
    [
        ("not_object.mjs", 'the driver returned the string "pass"; expected an object { verdicts, notes }'),
        ("verdicts_array.mjs",
         ("the driver's verdicts is an array; expected an object mapping verdict ids to true, "
         "false, null or a check's expectations")),
        ("verdict_string.mjs",
         ("the driver's verdicts[\"scoring\"] is the string \"yes\"; expected true (pass), "
         "false (fail), null (precondition unmet) or the expectations a check recorded")),
        ("no_default.mjs",
         ("no_default.mjs exports neither a default nor drive; expected an item { id, arrange(api), act(api), "
          "assert(api, check) }, a function returning one, drive(api, ttc), or (api) => ({ verdicts, notes })")),
        ("misspelt.mjs", 'the driver returned no verdict for "scoring" (it returned: "scorin")'),
        ("missing.mjs", "could not import the driver missing.mjs: there is no such file"),
    ],
    ids=["not-object", "verdicts-array", "verdict-string", "no-default", "misspelt-id", "404"],
)
def test_malformed_driver(page: Page, pages_url: str, judge: JudgeRuntime, tmp_path: Path, driver: str,
                          error: str) -> None:
    run = drive(page, pages_url, judge, driver, tmp_path)
    assert run.error == error
    assert run.verdicts == {}


def test_declared_image_never_produced(page: Page, pages_url: str, judge: JudgeRuntime, tmp_path: Path) -> None:
    run = drive(page, pages_url, judge, "no_screenshot.mjs", tmp_path, outputs=(IMAGE,))
    assert run.error == ('declared image output "goal" was never produced: the driver never '
                         'called api.screenshot("goal")')


def test_screenshot_of_a_video_output_is_refused(page: Page, pages_url: str, judge: JudgeRuntime,
                                                 tmp_path: Path) -> None:
    run = drive(page, pages_url, judge, "screenshot_video.mjs", tmp_path, outputs=(VIDEO,))
    assert run.error is not None
    assert run.error.startswith(
        'the driver threw Error: api.screenshot("clip"): "clip" is a video output, a clip the runtime '
        "records; screenshot() takes an image output\n"
    )


@pytest.mark.parametrize("driver", ["forever.mjs", "busy.mjs", "hang.mjs", "spin.mjs"])
def test_runaway_driver_is_stopped_at_its_deadline(page: Page, pages_url: str, judge: JudgeRuntime, tmp_path: Path,
                                                   driver: str) -> None:
    started = time.monotonic()
    run = drive(page, pages_url, judge, driver, tmp_path, timeout_s=1)
    assert time.monotonic() - started < 1 + 5
    assert run.error == "the driver did not finish within 1 s; its page was closed"
    assert page.is_closed()


def test_trusted_input_reaches_the_page(page: Page, pages_url: str, judge: JudgeRuntime, tmp_path: Path) -> None:
    run = drive(page, pages_url, judge, "input.mjs", tmp_path)
    assert (run.error, run.verdicts, run.notes) == (None, {"scoring": True}, '{"jumps":1,"clicks":[[640,360]]}')


# -- media ----------------------------------------------------------------------------------------


def test_screenshot_output_is_a_png(page: Page, pages_url: str, judge: JudgeRuntime, tmp_path: Path) -> None:
    run = drive(page, pages_url, judge, "screenshot.mjs", tmp_path, outputs=(IMAGE,))
    assert run.error is None
    assert run.images == {"goal": tmp_path / "scoring__goal.png"}
    with Image.open(run.images["goal"]) as image:
        assert (image.format, image.size) == ("PNG", (1280, 720))
        assert image.convert("RGB").getpixel((320, 320)) == (0x33, 0xEE, 0x33)


def test_video_output_is_the_whole_drive_as_a_webm(page: Page, pages_url: str, judge: JudgeRuntime, tmp_path: Path) -> None:
    run = drive(page, pages_url, judge, "video.mjs", tmp_path, outputs=(VIDEO,))
    assert run == DriverRun({"scoring": True}, "", {}, None, "verdicts", clip=tmp_path / "scoring__clip.webm")
    probe = json.loads(subprocess.run(
        [_ffprobe(), "-v", "error", "-show_streams", "-show_format", "-of", "json", str(run.clip)],
        check=True, capture_output=True, text=True,
    ).stdout)
    video = [stream for stream in probe["streams"] if stream["codec_type"] == "video"]
    assert [(s["codec_name"], s["width"], s["height"]) for s in video] == [("vp9", 1280, 720)]
    # twenty 50 ms settles and twenty step crossings (each a page call: slower on a loaded host)
    assert 0.8 < float(probe["format"]["duration"]) < 6


def _ffprobe() -> str:
    found = shutil.which("ffprobe")
    if found is None:
        pytest.skip("ffprobe (Debian ffmpeg) is needed to decode the clip")
    return found


# -- the loopback guard ---------------------------------------------------------------------------


def test_only_the_loopback_server_is_reachable(page: Page, pages_url: str, judge: JudgeRuntime, tmp_path: Path) -> None:
    failures: list[tuple[str, str | None]] = []
    page.on("requestfailed", lambda request: failures.append((request.url, request.failure)))
    ids = ("blocked.name", "blocked.address", "blocked.socket", "local")
    run = drive(page, pages_url, judge, "loopback.mjs", tmp_path, verdict_ids=ids)
    assert run.error is None
    assert run.verdicts == dict.fromkeys(ids, True)
    # Aborted by the context's route ("blocked by client"), not refused by a network.
    assert sorted((url, (failure or "").split(".")[0]) for url, failure in failures) == [
        ("http://10.0.0.1/", "net::ERR_BLOCKED_BY_CLIENT"),
        ("http://example.com/", "net::ERR_BLOCKED_BY_CLIENT"),
    ]


# -- loading, actions, mockups ----------------------------------------------------------------------


def test_page_that_throws_on_load(page: Page, pages_url: str) -> None:
    with pytest.raises(DriveError) as raised:
        load(page, pages_url + "throws.html", 10_000)
    assert str(raised.value) == (
        "the page threw while loading: TypeError: Cannot read properties of undefined "
        "(reading 'start') (/throws.js:3:7)"
    )


def test_page_that_is_not_found(page: Page, pages_url: str) -> None:
    with pytest.raises(DriveError, match=r"^the page answered HTTP 404 Not Found for "):
        load(page, pages_url + "gone.html", 10_000)


def test_actions_drive_the_page(page: Page, pages_url: str) -> None:
    log = load(page, pages_url + "game.html", 10_000)
    perform(page, [
        Key(type="key", key="Space"),
        Click(type="click", x=640, y=360),
        Call(type="call", op="step", args=[4]),
        Hold(type="hold", key="ArrowUp", ms=200),
        Wait(type="wait", ms=10),
    ], "__game", 5_000)
    state = page.evaluate("() => window.__game.snapshot()")
    assert (state["jumps"], state["clicks"], state["x"]) == (1, [[640, 360]], 4)
    assert 190 <= state["held"]["ArrowUp"] < 1_000
    assert log.page_errors == []


@pytest.mark.parametrize(
    ("action", "handle", "error"),
    [
        (Call(type="call", op="nope"), "__game",
         'actions[1] (call "nope"): window.__game.nope is not a function (it is undefined)'),
        (Call(type="call", op="step"), None,
         ('actions[1] (call "step"): a call needs the build\'s debug API, but the case declares '
         "no [instrumentation] handle")),
        (Call(type="call", op="step"), "__missing",
         'actions[1] (call "step"): window.__missing is undefined'),
        (Call(type="call", op="explode"), "__game",
         'actions[1] (call "explode"): window.__game.explode(...) threw Error: kaboom'),
        (Call(type="call", op="hang"), "__game",
         'actions[1] (call "hang"): window.__game.hang(...) did not settle within 2000 ms; its page was closed'),
        (Call(type="call", op="spin"), "__game",
         'actions[1] (call "spin"): window.__game.spin(...) did not settle within 2000 ms; its page was closed'),
        (Call(type="call", op="tamper"), "__game",
         'actions[1] (call "tamper"): window.__game.tamper(...) did not settle within 2000 ms; its page was closed'),
        (Key(type="key", key="NoSuchKey"), "__game", 'actions[1] (key "NoSuchKey"): '),
    ],
    ids=["no-method", "no-handle-declared", "no-handle-installed", "throws", "never-settles",
         "never-returns", "rewrites-its-built-ins", "unknown-key"],
)
def test_failing_action(page: Page, pages_url: str, action: Call | Key, handle: str | None,
                        error: str) -> None:
    load(page, pages_url + "game.html", 10_000)
    with pytest.raises(DriveError) as raised:
        # 2 s: a loaded host can take longer than a few hundred ms for one call that does settle
        perform(page, [Wait(type="wait", ms=0), action], handle, 2000)
    assert str(raised.value).startswith(error)
    assert raised.value.action_index == 1


def test_render_mockup_and_screenshot(session: BrowserSession, pages_url: str) -> None:
    context = session.new_context()
    try:
        mockup = render_mockup(context, pages_url + "mockup.html", (640, 360))
        page = context.new_page()
        load(page, pages_url + "mockup.html", 10_000)
        shot = screenshot_png(page)
    finally:
        context.close()
    with Image.open(io.BytesIO(mockup)) as image:
        assert image.size == (640, 360)
        assert image.convert("RGB").getpixel((10, 10)) == (255, 0, 0)
        assert image.convert("RGB").getpixel((200, 200)) == (0, 0, 255)
    with Image.open(io.BytesIO(shot)) as image:
        assert image.size == (1280, 720)


# -- discovery ------------------------------------------------------------------------------------


def test_named_chromium_must_exist(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("TCAB_CHROMIUM", raising=False)
    with pytest.raises(BrowserError, match=r"^--tcab-chromium=.*/nothing: no executable file there$"):
        find_chromium(str(tmp_path / "nothing"))
    monkeypatch.setenv("TCAB_CHROMIUM", str(tmp_path / "nothing"))
    with pytest.raises(BrowserError, match=r"^TCAB_CHROMIUM=.*/nothing: no executable file there$"):
        find_chromium(None)


def test_discovery_order(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("TCAB_CHROMIUM", raising=False)
    monkeypatch.setenv("PLAYWRIGHT_BROWSERS_PATH", str(tmp_path / "registry"))
    own = playwright_chromium()
    assert own is not None and own.is_relative_to(tmp_path / "registry")
    before = find_chromium(None)
    assert before is None or before.source == "system"
    own.parent.mkdir(parents=True)
    own.write_text("#!/bin/sh\n")
    own.chmod(0o755)
    assert find_chromium(None) == ChromiumLocation(own, "playwright")
    monkeypatch.setenv("TCAB_CHROMIUM", "/usr/bin/env")
    assert find_chromium(None) == ChromiumLocation(Path("/usr/bin/env"), "TCAB_CHROMIUM")
    assert find_chromium(str(own)) == ChromiumLocation(own, "--tcab-chromium")


def test_session_leaves_the_environment_alone(session: BrowserSession) -> None:
    # The ffmpeg redirect applies to the driver only; discovery must keep seeing the user's setup.
    assert "tcab-playwright-" not in os.environ.get("PLAYWRIGHT_BROWSERS_PATH", "")


def test_tcab_browser_fixture_and_override_point(pytester: pytest.Pytester,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    # A subprocess: Playwright's sync API allows one running instance per thread, and this
    # module's own session may be alive.
    repo = str(Path(__file__).parents[3])
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [repo, os.environ.get("PYTHONPATH")])))
    pytester.makeconftest(
        """
        import pytest

        @pytest.fixture(scope="session")
        def tcab_context_args():
            return {"locale": "de-DE"}
        """
    )
    pytester.makepyfile(
        """
        def test_locale(tcab_browser):
            context = tcab_browser.new_context()
            page = context.new_page()
            page.set_content("<p>x</p>")
            assert page.evaluate("navigator.language") == "de-DE"
            context.close()
        """
    )
    result = pytester.runpytest_subprocess("-p", "pytest_tcab.run.browser.item", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)


def test_one_session_per_thread(session: BrowserSession) -> None:
    with pytest.raises(BrowserError, match=r"^a BrowserSession is already running in this thread"):
        BrowserSession(session.chromium)
