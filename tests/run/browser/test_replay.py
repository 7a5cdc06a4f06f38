"""The final match replayed by the suite's renderer page in real Chromium, recorded as a clip,
and the report framing the player page."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.tournament_suite import ARGS
from tests.tournament_suite import RUNS
from tests.tournament_suite import write_suite

pytestmark = [pytest.mark.browser, pytest.mark.wasm]


def test_the_final_match_is_replayed_and_framed_in_the_report(pytester: pytest.Pytester) -> None:
    write_suite(pytester.path, {"strong": "strong", "weak": "weak"}, renderer=True)
    result = pytester.runpytest(*ARGS, f"--tcab-run={RUNS / 'strong'}", f"--tcab-run={RUNS / 'weak'}", "-v")
    result.assert_outcomes(passed=5)
    result.stdout.fnmatch_lines(["*::replay[[]strong-vs-weak#0[]] PASSED*"])
    out = pytester.path / ".tcab/results"
    run = json.loads((out / "results.json").read_text())["runs"][0]
    replay = next(item for item in run["items"] if item["kind"] == "replay")
    clip = Path(replay["clip"])
    assert clip.name == "replay__strong-vs-weak_0.webm" and clip.stat().st_size > 1000
    assert clip.read_bytes()[:4] == b"\x1aE\xdf\xa3"  # a WebM (Matroska) file
    assert replay["poster"] == str(clip.with_name("replay__strong-vs-weak_0.poster.png"))  # its last frame
    assert Path(replay["poster"]).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    player = out / "echo-tournament/replays/strong-vs-weak_0.html"
    page = player.read_text()
    assert page.index("window.TCAB_REPLAY = {") < page.index("<title>Echo replay</title>")
    report = (out / "report.html").read_text()
    assert '<iframe src="echo-tournament/replays/strong-vs-weak_0.html"' in report
    assert ('src="echo-tournament/replay__strong-vs-weak_0.webm" '
            'poster="echo-tournament/replay__strong-vs-weak_0.poster.png"') in report


def test_a_renderer_that_throws_fails_the_replay_item(pytester: pytest.Pytester) -> None:
    write_suite(pytester.path, {"strong": "strong", "weak": "weak"}, renderer=True)
    page = pytester.path / "suite/test-cases/adversarial/easy/echo/v1.0.0/replay/index.html"
    page.write_text(page.read_text().replace("log.frames[Math.min", "log.frame[Math.min"))
    result = pytester.runpytest(*ARGS, f"--tcab-run={RUNS / 'strong'}", f"--tcab-run={RUNS / 'weak'}")
    result.assert_outcomes(passed=4, failed=1)
    result.stdout.fnmatch_lines([("the renderer threw while playing the replay: Uncaught TypeError: Cannot read "
                                 "properties of undefined (reading '0')")])
