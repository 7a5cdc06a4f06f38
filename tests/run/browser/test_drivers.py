"""`validate[<verdict>]` end to end with real Chromium, as a user runs it.

The gauge fixture case (tests/gauge/README.md) has one driver per way a drive can end, so one
session answers most tests here; Carom's example run and a broken copy of its reference
implementation show the same on a real game.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import threading
import urllib.request
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from tests.conftest import EXAMPLE_SUITE
from tests.conftest import copy_example_suite
from tests.html_reports import media_attributes
from tests.html_reports import pytest_html_extras
from tests.validation import GAUGE_VERSION
from tests.validation import Session
from tests.validation import edit
from tests.validation import ffprobe
from tests.validation import gauge_project
from tests.validation import lines
from tests.validation import run_session

pytestmark = pytest.mark.browser

CAROM = Path("example-suite/test-cases/end-to-end/medium/carom/v2.0.0")
CAROM_RUN = "example-suite/runs/carom-base"
PYTEST_HTML = "out/pytest-html/report.html"


# -- the gauge session: one build, every outcome -------------------------------------------------


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


def _own_address() -> str | None:
    """This host's non-loopback IPv4 address, or None when it has none."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # UDP: picks a route, sends nothing
        except OSError:
            return None
        address: str = probe.getsockname()[0]
    return None if address.startswith("127.") else address


@pytest.fixture(scope="module")
def host_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str | None]:
    """A live server on this host's non-loopback address: reachable, so only the guard can block it."""
    address = _own_address()
    if address is None:
        yield None
        return
    folder = tmp_path_factory.mktemp("host")
    (folder / "index.html").write_text("reachable", encoding="utf-8")
    server = ThreadingHTTPServer(("0.0.0.0", 0), partial(_Quiet, directory=str(folder)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://{address}:{server.server_address[1]}/"
        with urllib.request.urlopen(url, timeout=5) as response:  # reachable from the host itself
            assert response.read() == b"reachable"
        yield url
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@pytest.fixture(scope="module")
def gauge(tmp_path_factory: pytest.TempPathFactory, host_url: str | None) -> Session:
    project = gauge_project(tmp_path_factory.mktemp("gauge"), host_url or "http://192.0.2.1/")
    return run_session(project, "--tcab-suite=suite", "--tcab-run=game", "--tcab-driver-timeout=2", "-v", "-rsx")


def test_each_verdict_is_decided_once_and_the_run_goes_on(gauge: Session) -> None:
    gauge.result.assert_outcomes(passed=4, failed=6, skipped=1, xfailed=1)
    assert {name: item["outcome"] for name, item in gauge.items().items()} == {
        "counts": "passed", "dial.zero": "passed", "offline": "passed", "doubles": "failed",
        "unmet": "skipped", "throws": "failed", "malformed": "failed", "unbacked": "failed",
        "still": "failed", "slow": "failed", "excluded": "excluded",
    }


@pytest.mark.parametrize(("verdict", "message"), [
    pytest.param("doubles", 'verdict "doubles" is false: 1 + 2 read 3, expected 4', id="false"),
    pytest.param("unmet", "left for the reviewer: the build has no second dial to compare", id="null"),
    pytest.param("throws", "validation/throws.mjs: the driver threw Error: the dial reads 5 after a reset\n"
                           "    at expectZero (validation/throws.mjs:3:9)\n"
                           "    at Module.default (validation/throws.mjs:8:3)", id="throw"),
    pytest.param("malformed", 'validation/malformed.mjs: the driver returned the string "yes"; '
                              "expected an object { verdicts, notes }", id="malformed-return"),
    pytest.param("unbacked", 'validation/unbacked.mjs: the driver returned no verdict for "unbacked" '
                             '(it returned: "counts")', id="verdict-missing"),
    pytest.param("still", 'validation/still.mjs: declared image output "frame" was never produced: '
                          'the driver never called api.screenshot("frame")', id="output-missing"),
    pytest.param("slow", "validation/slow.mjs: the driver did not finish within 2 s; its page was closed",
                 id="timeout"),
    pytest.param("excluded", 'excluded by erratum excluded-point: verdict "excluded" is false: '
                             "this driver is known to be wrong", id="excluded-by-erratum"),
])
def test_each_way_a_drive_ends_has_its_exact_reason(gauge: Session, verdict: str, message: str) -> None:
    assert gauge.items()[verdict]["message"] == message


def test_a_failed_verdict_keeps_the_page_its_driver_left(gauge: Session) -> None:
    """Every failure but the timeout (whose page was closed) saves the page as the driver left it."""
    shots = {name: item.get("failure_screenshot") for name, item in gauge.items().items()}
    kept = {name for name, shot in shots.items() if shot}
    assert kept == {"doubles", "throws", "malformed", "unbacked", "still", "excluded"}
    for name in kept:
        assert shots[name] == str(gauge.path / f"out/game/browser/validate_{name}/failure.png")
        with Image.open(str(shots[name])) as page:
            assert page.size == (1280, 720)


def test_the_terminal_names_each_failure_and_the_score(gauge: Session) -> None:
    gauge.result.stdout.fnmatch_lines(lines(
        "game/.tcab/run.toml::validate[counts] PASSED*",
        "game/.tcab/run.toml::validate[unmet] SKIPPED (left for the reviewer*",
        "game/.tcab/run.toml::validate[excluded] XFAIL (excluded by erratum e*",
        "*_ tcab: validate[doubles] _*",
        'verdict "doubles" is false: 1 + 2 read 3, expected 4',
        "*- tcab -*",
        "gauge@v1.0.0#base (game): 1 excluded, 6 failed, 4 passed, 1 skipped",
        "  verdict counts: pass",
        "  verdict dial.zero: pass",
        "  verdict doubles: fail",
        "  verdict excluded: fail (excluded from the score by erratum excluded-point)",
        "  verdict malformed: fail",
        "  verdict offline: pass",
        "  verdict slow: fail",
        "  verdict still: fail",
        "  verdict throws: fail",
        "  verdict unbacked: fail",
        "  verdict unmet: left for the reviewer",
        "  score: 3 of 9 automated points earned (6 failed); 11 declared, 2 left for the reviewer",
        "  erratum bar-width on counts affects scoring: Bar width was never specified",
    ))
    assert "Traceback" not in gauge.result.stdout.str()


def test_the_score_counts_what_drivers_decided(gauge: Session) -> None:
    run = gauge.run()
    score = {key: value for key, value in run["score"].items() if key != "items"}
    assert score == {
        "earned": 3.0, "available": 9.0, "declared": 11.0, "decided_weight": 9.0, "failed_weight": 6.0,
        "pending_weight": 2.0,
        "automated": ["counts", "dial.zero", "doubles", "malformed", "offline", "slow", "still", "throws",
                      "unbacked"],
        "failed": ["doubles", "malformed", "slow", "still", "throws", "unbacked"],
        "pending": ["dial.full", "unmet"],
        "excluded": ["excluded"],
    }
    assert [(e["id"], e["affects_scoring"], e["exclude_from_score"]) for e in run["errata"]] == [
        ("excluded-point", False, True), ("bar-width", True, False)]


def test_media_are_named_by_verdict_and_output_and_decode(gauge: Session) -> None:
    items = gauge.items()
    media = gauge.path / "out/game/validation"
    assert items["counts"]["media"] == [
        {"output": "dial", "kind": "image", "path": str(media / "counts__dial.png"), "baseline": None},
        {"output": "clip", "kind": "video", "path": str(media / "counts__clip.webm"), "baseline": None,
         "poster": str(media / "counts__clip.poster.png"), "baseline_poster": None},
    ]
    assert (items["counts"]["verdict"], items["counts"]["notes"]) == (True, "read 3 after three adds")
    with Image.open(media / "counts__dial.png") as still:
        assert (still.format, still.size) == ("PNG", (1280, 720))
        assert still.convert("RGB").getpixel((100, 230)) == (0xFF, 0xD5, 0x4F)  # the bar, drawn at 3
    probe = ffprobe(media / "counts__clip.webm")
    assert [s["codec_type"] for s in probe["streams"]] == ["video"]
    assert float(probe["format"]["duration"]) > 0
    # A failed drive still shows what it produced; an output never produced is recorded as such.
    assert items["still"]["media"] == [{"output": "frame", "kind": "image", "path": None, "baseline": None}]


def test_a_driver_reaches_nothing_but_the_loopback_server(gauge: Session, host_url: str | None) -> None:
    if host_url is None:
        pytest.skip("this host has no non-loopback address to serve from")
    notes = gauge.items()["offline"]["notes"]
    assert notes == ("http://example.com/ failed: TypeError: Failed to fetch; "
                     f"{host_url} failed: TypeError: Failed to fetch; the build's own server answered 200")


# -- gauge variations, each its own small session --------------------------------------------------


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest("-p", "no:cacheprovider", "--tcab-suite=suite", "--tcab-run=game", "--tcab-out=out",
                              *args)


def test_a_build_without_its_handle_fails_every_verdict(pytester: pytest.Pytester) -> None:
    gauge_project(pytester.path)
    edit(pytester.path / "game/index.html", "window.__gauge =", "window.__meter =")
    result = _run(pytester, "-k", "counts or doubles")
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(lines(
        "validation/pass.mjs: window.__gauge is undefined: the build does not install its debug API",
        "validation/false.mjs: window.__gauge is undefined: the build does not install its debug API",
    ))


def test_without_node_every_verdict_is_not_graded_saying_how_to_install_one(pytester: pytest.Pytester,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """The host's lack, not the build's doing (DESIGN "Sweeps"): not graded, so a sweep leaves the run out of
    its means and `--tcab-retries` or `--tcab-resume` grade it again."""
    from pytest_tcab.run.judge import runtime

    gauge_project(pytester.path)
    monkeypatch.setattr(runtime, "find_node", lambda: None)
    result = _run(pytester, "-k", "counts or doubles")
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(lines(*[f"not graded: {runtime.NO_NODE}"] * 2))


def test_a_failed_build_fails_every_verdict_as_not_run(pytester: pytest.Pytester) -> None:
    gauge_project(pytester.path)
    edit(pytester.path / GAUGE_VERSION / "test-case.toml", 'build = "mkdir -p dist && cp index.html dist/"',
         'build = "exit 3"')
    result = _run(pytester, "-k", "validate and (counts or unmet)")
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(lines(*["not run: build failed (build failed: `exit 3` exited 3)"] * 2))


def test_strict_fails_a_verdict_left_for_the_reviewer(pytester: pytest.Pytester) -> None:
    gauge_project(pytester.path)
    result = _run(pytester, "-k", "unmet", "--tcab-strict")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["left for the reviewer: the build has no second dial to compare (--tcab-strict)"])


def test_validate_items_point_at_their_validation_tables(pytester: pytest.Pytester) -> None:
    gauge_project(pytester.path)
    copy_example_suite(pytester.path)
    manifest = pytester.path / GAUGE_VERSION / "test-case.toml"
    items, _ = pytester.inline_genitems("-p", "no:cacheprovider", "--tcab-suite=suite", "--tcab-run=game")
    located = {item.name: item.declared_at() for item in items if item.name.startswith("validate")}
    assert located["validate[counts]"] == (manifest, 22)
    assert located["validate[dial.zero]"] == (manifest, 33)  # a sub-item's own table
    carom = pytester.path / CAROM
    items, _ = pytester.inline_genitems("-p", "no:cacheprovider", "--tcab-suite=example-suite",
                                        f"--tcab-run={CAROM_RUN}", "--tcab-case=pong@v2.0.0#frenzy")
    located = {item.name: item.declared_at() for item in items if item.name.startswith("validate")}
    assert located == {
        "validate[spin.stationary]": (carom / "test-case.toml", 67),
        "validate[spin.moving]": (carom / "test-case.toml", 74),
        "validate[scoring.point]": (carom / "test-case.toml", 91),
        "validate[frenzy.escalation]": (carom / "variants/frenzy.toml", 26),  # declared by the variant
    }
    # An IDE opens the file the ids name, the run's run.toml, at the line naming the case (0-based).
    assert {item.reportinfo()[:2] for item in items} == {(pytester.path / CAROM_RUN / ".tcab/run.toml", 0)}


# -- Carom: the example run, and a deliberately broken reference implementation ------------------


@pytest.fixture(scope="module")
def carom_base(tmp_path_factory: pytest.TempPathFactory) -> Session:
    project = tmp_path_factory.mktemp("carom")
    copy_example_suite(project)
    # The report forms and pytest-html's extras are read from this session too (see below).
    return run_session(project, "--tcab-suite=example-suite", f"--tcab-run={CAROM_RUN}", "-v",
                       "--tcab-report=self-contained", f"--html={PYTEST_HTML}")


def test_the_example_run_fails_only_its_broken_verdict(carom_base: Session) -> None:
    carom_base.result.assert_outcomes(passed=6, failed=1, skipped=1)
    assert carom_base.items()["spin.stationary"]["message"] == (
        'verdict "spin.stationary" is false: 3 of 4 expectations failed:\n'
        "    max |spin| over 60 ticks of the return: expected < 0.000001, actual 0.04\n"
        "    max |vy| over 60 ticks of the return: expected < 0.000001, actual 0.7612043798004606\n"
        "    vertical drift of the return (px): expected < 0.5, actual 33.49832116359153")
    carom_base.result.stdout.fnmatch_lines(lines(
        "*- tcab -*",
        "pong@v2.0.0#base (carom-base): 1 failed, 6 passed, 1 skipped",
        "  check gameplay: similarity 1.0000",
        "  check title: similarity 1.0000",
        "  proof gameplay: missing",
        "  proof title: present",
        "  verdict scoring.point: pass",
        "  verdict spin.moving: pass",
        "  verdict spin.stationary: fail",
        "  score: 3 of 4 automated points earned (1 failed); 6 declared, 2 left for the reviewer",
        "  erratum decay-timing on spin.decay affects scoring: Spin decay window is loosely worded",
    ))


def test_the_example_run_scores_its_automated_points(carom_base: Session) -> None:
    score = carom_base.run()["score"]
    assert (score["earned"], score["available"], score["declared"], score["decided_weight"], score["failed_weight"],
            score["pending_weight"]) == (3.0, 4.0, 6.0, 4.0, 1.0, 2.0)
    assert (score["automated"], score["failed"], score["pending"], score["excluded"]) == (
        ["scoring.point", "spin.moving", "spin.stationary"], ["spin.stationary"], ["spin.decay", "scoring.display"],
        [])
    assert [(e["id"], e["affects_scoring"]) for e in carom_base.run()["errata"]] == [("decay-timing", True)]


def test_the_example_run_media_sit_beside_their_committed_baselines(carom_base: Session) -> None:
    media = {item_id: item["media"] for item_id, item in carom_base.items().items()}
    baselines = carom_base.path / CAROM / "validation-baseline/base"
    observed = carom_base.path / "out/carom-base/validation"
    # The committed baselines are copied beside the observed media, so the folder stays whole.
    assert media["spin.moving"] == [{"output": "curve", "kind": "image", "path": str(observed / "spin.moving__curve.png"),
                                     "baseline": str(observed / "baseline/spin.moving__curve.png")}]
    assert media["spin.stationary"][0]["baseline"] == str(observed / "baseline/spin.stationary__straight.webm")
    for name in ("spin.moving__curve.png", "spin.stationary__straight.webm"):
        assert (observed / "baseline" / name).read_bytes() == (baselines / name).read_bytes()
    with Image.open(observed / "spin.moving__curve.png") as still:
        assert (still.format, still.size) == ("PNG", (1280, 720))
    for clip in ("spin.stationary__straight.webm", "scoring.point__goal.webm"):
        probe = ffprobe(observed / clip)
        assert [(s["codec_type"], s["width"], s["height"]) for s in probe["streams"]] == [("video", 1280, 720)]
        # act played in real time: about 100 ticks at 60 Hz (1.7 s); a loaded host can cost a few frames at
        # either end, but a clip of act is never the instant a still or the validate pass would take
        assert float(probe["format"]["duration"]) > 1.2


def test_the_example_run_clips_open_on_the_game_and_show_their_last_frame_as_poster(carom_base: Session) -> None:
    from pytest_tcab.run.browser.imagediff import is_blank

    observed = carom_base.path / "out/carom-base/validation"
    clips = {item_id: shown for item_id, item in carom_base.items().items() for shown in item["media"]
             if shown["kind"] == "video"}
    assert sorted(clips) == ["scoring.point", "spin.stationary"]
    for shown in clips.values():
        clip = Path(shown["path"])
        assert shown["poster"] == str(clip.with_name(clip.stem + ".poster.png"))
        assert shown["baseline_poster"] == str(observed / "baseline" / Path(shown["poster"]).name)
        first = clip.with_name(clip.stem + ".first.png")
        subprocess.run(["ffmpeg", "-loglevel", "error", "-i", str(clip), "-frames:v", "1", "-y", str(first)], check=True)
        for still in (Path(shown["poster"]), Path(shown["baseline_poster"]), first):
            with Image.open(still) as image:
                assert (image.format, image.size) == ("PNG", (1280, 720))
                assert not is_blank(image), f"{still.name} is a single colour"  # the court, not a white frame


def test_the_example_run_report_is_self_contained_and_links_nothing(carom_base: Session) -> None:
    from pytest_tcab.run.report.html import LINKED
    from pytest_tcab.run.report.html import write_report

    text = (carom_base.path / "out/report.html").read_text(encoding="utf-8")
    found = media_attributes(text)
    assert [value for _, _, value in found if not value.startswith("data:")] == []  # no relative link is left
    tags = [(tag, attribute) for tag, attribute, _ in found]
    # Two checks' expected/actual/diff, the proof present, a still and its baseline, two clips and their baselines,
    # and the page the failed verdict's driver left.
    assert (tags.count(("img", "src")), tags.count(("video", "src")), tags.count(("video", "poster"))) == (10, 4, 4)
    assert "self-contained: " in text and "left out" not in text
    # The linked form of the same results stays the smaller, the default.
    linked = write_report(carom_base.results(), carom_base.path / "linked", LINKED)
    assert linked.stat().st_size * 10 < len(text.encode())


def test_pytest_html_shows_the_example_run_media(carom_base: Session) -> None:
    report = carom_base.path / PYTEST_HTML
    extras = pytest_html_extras(report.read_text(encoding="utf-8"))
    names = {test.rpartition("::")[2]: [(extra["name"], extra["format_type"]) for extra in found]
             for test, found in extras.items() if found}
    assert names == {
        "check[title]": [("title: expected", "image"), ("title: actual", "image"), ("title: diff", "image")],
        "check[gameplay]": [("gameplay: expected", "image"), ("gameplay: actual", "image"),
                            ("gameplay: diff", "image")],
        "proof[title]": [("proof proof/title.png", "image")],
        "validate[spin.stationary]": [("straight: expected (committed baseline)", "video"),
                                      ("straight: observed", "video")],
        "validate[spin.moving]": [("curve: expected (committed baseline)", "image"), ("curve: observed", "image")],
        "validate[scoring.point]": [("goal: expected (committed baseline)", "video"), ("goal: observed", "video")],
    }
    # pytest-html wrote each medium beside its report, byte for byte the run's own.
    actual = next(extra for extra in extras["example-suite/runs/carom-base/.tcab/run.toml::check[title]"]
                  if extra["name"] == "title: actual")
    assert (report.parent / actual["content"]).read_bytes() == (
        carom_base.path / "out/carom-base/checks/title__actual.png").read_bytes()


def test_a_broken_reference_copy_fails_exactly_the_broken_verdict(pytester: pytest.Pytester) -> None:
    copy_example_suite(pytester.path)
    shutil.copytree(EXAMPLE_SUITE / CAROM.relative_to("example-suite") / "reference-impl/base",
                    pytester.path / "broken", ignore=shutil.ignore_patterns("dist", "node_modules"))
    edit(pytester.path / "broken/src/game.js", "s.score[who]++;", "s.score[who] += 0; // never increments")
    result = pytester.runpytest("-p", "no:cacheprovider", "--tcab-suite=example-suite", "--tcab-run=broken",
                                "--tcab-case=pong@v2.0.0#base", "--tcab-out=out", "-k", "validate", "-v")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(lines(
        # No run.toml in the copy: the items live under the case manifest --tcab-case names.
        "*/v2.0.0/test-case.toml::validate[spin.stationary] PASSED*",
        "*/v2.0.0/test-case.toml::validate[spin.moving] PASSED*",
        "*/v2.0.0/test-case.toml::validate[scoring.point] FAILED*",
        'verdict "scoring.point" is false: 1 of 2 expectations failed:',
        "    points gained by the right player: expected 1, actual 0",
    ))


def test_a_script_whose_precondition_is_unmet_is_left_for_the_reviewer(pytester: pytest.Pytester) -> None:
    copy_example_suite(pytester.path)
    shutil.copytree(EXAMPLE_SUITE / CAROM.relative_to("example-suite") / "reference-impl/base",
                    pytester.path / "classic", ignore=shutil.ignore_patterns("dist", "node_modules"))
    args = ("-p", "no:cacheprovider", "--tcab-suite=example-suite", "--tcab-run=classic",
            "--tcab-case=pong@v2.0.0#frenzy", "--tcab-out=out", "-k", "escalation", "-rs")
    result = pytester.runpytest(*args)
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(lines(
        'SKIPPED *left for the reviewer: precondition unmet: the build is in mode "base", not "frenzy"'))
    pytester.runpytest(*args, "--tcab-strict").assert_outcomes(failed=1)
