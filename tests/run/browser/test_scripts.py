"""Validation scripts in every form the public catalog writes, against a real page.

`pages/clock.html` is a build with a fixed-step clock, a painted canvas and a Web Audio beep;
`pages/scripts/` holds one script per way a script can end, sharing `_helpers.mjs`.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from PIL import Image

from pytest_tcab.run.browser.audio import audio_sources
from pytest_tcab.run.browser.audio import watch_audio
from pytest_tcab.run.browser.driving import load
from pytest_tcab.run.judge.runtime import JudgeRuntime
from pytest_tcab.run.judge.scripts import DriverRun
from pytest_tcab.run.judge.scripts import Expectation
from pytest_tcab.run.judge.scripts import OutputSpec
from pytest_tcab.run.judge.scripts import Script
from pytest_tcab.run.judge.scripts import run_script

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.browser

STILL = OutputSpec("still", "image")
CLIP = OutputSpec("clip", "video")


SCRIPTS = Path(__file__).parent / "pages/scripts"


def run(page: Page, pages_url: str, judge: JudgeRuntime, name: str, tmp_path: Path, *,
        outputs: tuple[OutputSpec, ...] = (), preroll_ms: int = 0) -> DriverRun:
    """`name` against clock.html, in the judge; each pass reloads the page (and waits `preroll_ms` before it)."""
    watch_audio(page)

    def open_page() -> Page:
        load(page, pages_url + "clock.html", 10_000)
        page.wait_for_timeout(preroll_ms)
        return page

    script = Script(path=SCRIPTS / name, name=f"validation/{name}", roots={f"{SCRIPTS}/": "validation/"},
                    handle="__clock", outputs=outputs, verdict_ids=["scoring"], tick_hz=60)
    return run_script(open_page, script, judge, 20, tmp_path, "scoring", audio_sources)


def test_an_item_passes_with_exact_advance_and_until_counts(page: Page, pages_url: str, judge: JudgeRuntime, tmp_path: Path) -> None:
    result = run(page, pages_url, judge, "item_pass.mjs", tmp_path, outputs=(STILL,))
    assert (result.error, result.form, result.verdicts) == (None, "item", {"scoring": True})
    assert len(result.expectations) == 9 and not result.failed_expectations, result.expectations
    assert set(result.images) == {"still"} and result.clip is None  # no video declared: nothing filmed


def test_an_item_that_fails_lists_each_failed_expectation_with_both_values(page: Page, pages_url: str, judge: JudgeRuntime,
                                                                          tmp_path: Path) -> None:
    result = run(page, pages_url, judge, "item_fail.mjs", tmp_path)
    assert (result.error, result.verdicts) == (None, {"scoring": False})
    assert [e.describe() for e in result.failed_expectations] == [
        "more than five ticks: expected > 5, actual 3",
        "about ten ticks: expected 10 ± 0.5, actual 3",
        "never true: did not hold",
    ]
    assert Expectation("three ticks", True, "3", "3") in result.expectations


def test_drive_reads_pixels_probe_and_audio(page: Page, pages_url: str, judge: JudgeRuntime, tmp_path: Path) -> None:
    result = run(page, pages_url, judge, "drive_pass.mjs", tmp_path, outputs=(STILL,))
    assert (result.error, result.form, result.verdicts) == (None, "drive", {"scoring": True}), result.expectations
    assert [e.label for e in result.expectations] == [
        "the canvas centre is orange", "probe", "no sound yet", "one source started",
        "an oscillator, connected, its context running"]
    with Image.open(result.images["still"]) as still:
        assert still.convert("RGB").getpixel((640, 360)) == (255, 128, 0)


def test_a_failed_assert_stops_a_drive_with_the_verdict_so_far(page: Page, pages_url: str, judge: JudgeRuntime, tmp_path: Path) -> None:
    result = run(page, pages_url, judge, "drive_stop.mjs", tmp_path)
    assert (result.error, result.form, result.verdicts) == (None, "drive", {"scoring": False})
    assert [e.describe() for e in result.failed_expectations] == ["more than two ticks: expected > 2, actual 2"]


def test_the_earliest_form_returns_an_asserters_records(page: Page, pages_url: str, judge: JudgeRuntime, tmp_path: Path) -> None:
    result = run(page, pages_url, judge, "asserter.mjs", tmp_path)
    assert (result.error, result.form, result.verdicts, result.notes) == (None, "verdicts", {"scoring": False},
                                                                          "stepped 4")
    assert result.expectations == (Expectation("four ticks", True), Expectation("five ticks", False))


def test_an_unmet_precondition_is_inconclusive(page: Page, pages_url: str, judge: JudgeRuntime, tmp_path: Path) -> None:
    result = run(page, pages_url, judge, "unmet.mjs", tmp_path, outputs=(CLIP,))
    assert (result.error, result.verdicts) == (None, {"scoring": None})
    assert result.notes == "precondition unmet: the build has no second paddle to pose"
    assert result.clip is None  # nothing decided, nothing filmed


@pytest.mark.parametrize(("name", "error"), [
    pytest.param("arrange_waits.mjs", "arrange() threw Error: arrange() must be instant, but it waited in real time: "
                 "setTimeout() called at validation/arrange_waits.mjs:6:", id="own-timer"),
    pytest.param("arrange_settles.mjs", "arrange() threw Error: api.advance(10) was called from arrange(), which "
                 "must be instant: pose the state with control ops and move anything that takes time into act()",
                 id="api"),
    pytest.param("fractional.mjs", "act() threw Error: api.advance(1.5): the case steps whole ticks "
                 "([instrumentation] tick_hz = 60); 1.5 is not a whole number of ticks", id="fractional"),
    pytest.param("wrong_id.mjs", 'the item\'s id is "score", but the manifest has this script back "scoring"',
                 id="wrong-id"),
    pytest.param("no_act.mjs", "the default export of validation/no_act.mjs is an item without a valid act; expected "
                 '{ id: "<verdict id>", arrange(api), act(api), assert(api, check) } (assert optional)', id="no-act"),
])
def test_a_broken_item_fails_with_a_clear_message(page: Page, pages_url: str, judge: JudgeRuntime, tmp_path: Path, name: str,
                                                  error: str) -> None:
    result = run(page, pages_url, judge, name, tmp_path)
    assert result.error is not None and result.error.startswith(error), result.error
    assert "127.0.0.1" not in result.error
    assert result.verdicts == {}


def test_the_record_pass_films_act_only_and_takes_the_stills(page: Page, pages_url: str, judge: JudgeRuntime, tmp_path: Path) -> None:
    started = time.monotonic()
    result = run(page, pages_url, judge, "item_pass.mjs", tmp_path, outputs=(STILL, CLIP), preroll_ms=800)
    elapsed = time.monotonic() - started
    assert (result.error, result.verdicts) == (None, {"scoring": True})
    assert result.clip == tmp_path / "scoring__clip.webm"
    with Image.open(result.images["still"]) as still:  # taken in act, on the record pass
        assert still.convert("RGB").getpixel((640, 360)) == (0, 255, 0)
    frames = _frames(result.clip, tmp_path / "frames")
    duration = len(frames) / 25
    # act's ~0.5 s (more on a loaded host), never the two 0.8 s pre-rolls nor the validate pass
    assert 0.3 <= duration <= elapsed - 2 * 0.8
    first, last = (_dominant(frame) for frame in (frames[0], frames[-1]))
    assert first in ("blue", "green")  # the state arrange left, as act begins: never the grey of a load
    assert last == "red"  # act's last paint


def _frames(clip: Path, folder: Path) -> list[Path]:
    folder.mkdir()
    subprocess.run(["ffmpeg", "-loglevel", "error", "-i", str(clip), "-vf", "scale=64:36",
                    str(folder / "%04d.png")], check=True)
    return sorted(folder.iterdir())


def _dominant(frame: Path) -> str:
    with Image.open(frame) as image:
        r, g, b = image.convert("RGB").getpixel((32, 18))  # type: ignore[misc]
    if max(r, g, b) - min(r, g, b) < 40:
        return "grey"
    return ("red", "green", "blue")[(r, g, b).index(max(r, g, b))]
