"""The page's fields as a review, every mistake a reviewer can make named by its field; the markup's
evidence panes (one side full width when only one is declared) and escaping; what RESULTS must hold;
the usage errors of `--tcab-review`."""

from __future__ import annotations

import json
import signal
import urllib.request
from pathlib import Path

import pytest

from pytest_tcab.review.grammar import ReviewVerdict
from pytest_tcab.review.page.form import prefilled
from pytest_tcab.review.page.form import read_form
from pytest_tcab.review.page.markup import _evidence
from pytest_tcab.review.page.markup import worklist_page
from pytest_tcab.review.page.runs import DRAFT
from pytest_tcab.review.page.runs import NOT_REVIEWED
from pytest_tcab.review.page.runs import STALE
from pytest_tcab.review.page.runs import ResultsUnreadable
from pytest_tcab.review.page.runs import ReviewedRun
from pytest_tcab.review.page.runs import load_runs
from pytest_tcab.review.page.runs import work_state
from pytest_tcab.review.page.view import Item
from pytest_tcab.review.page.view import Point
from pytest_tcab.review.page.view import RunView
from pytest_tcab.review.page.view import Shown
from tests.review.page.conftest import start_page
from tests.review.page.conftest import stop_page


def view() -> RunView:
    points = [Point("spin.stationary", "a", "No spin", 1.0, "fail", "decided by its validator: fail"),
              Point("spin.decay", "b", "Decay", 1.0, None, "no validator decides this point: it is yours")]
    return RunView(ReviewedRun({"run": "r"}, Path("r")), [Item(1, "spin", "Spin", None, 2.0, None, points)],
                   [{"id": "single-player", "name": "Single Player", "description": "Solo."}], [])


def read(fields: dict[str, object], revision: str = "", first: bool = True) -> tuple[object, list[str]]:
    submission = read_form(fields, revision, view(), "ana", "ab" * 32, first)
    return submission.review, submission.errors


def test_a_complete_form_is_a_review_with_a_line_only_where_the_reviewer_decided() -> None:
    review, errors = read({"review.spin.stationary": "fail", "review.spin.decay": "pass",
                           "rating.single-player": "great", "body": "Played it."})
    assert errors == []
    assert review.verdicts == {"spin.decay": ReviewVerdict(True)}  # type: ignore[attr-defined]
    assert review.ratings == {"single-player": "great"}  # type: ignore[attr-defined]
    assert review.build == "ab" * 32 and review.body == "Played it.\n"  # type: ignore[attr-defined]


def test_an_override_with_a_note_is_written_and_a_confirmation_with_a_note_too() -> None:
    review, errors = read({"review.spin.stationary": "pass", "note.spin.stationary": "  drifts   from the serve ",
                           "body": "x"})
    assert errors == [] and review.verdicts == {  # type: ignore[attr-defined]
        "spin.stationary": ReviewVerdict(True, "drifts from the serve")}
    review, _ = read({"review.spin.stationary": "fail", "note.spin.stationary": "seen it drift", "body": "x"})
    assert review.verdicts == {"spin.stationary": ReviewVerdict(False, "seen it drift")}  # type: ignore[attr-defined]


def test_every_mistake_is_named_by_its_field_at_once() -> None:
    review, errors = read({"review.spin.stationary": "pass", "review.spin.decay": "na", "note.nope": "x",
                           "rating.single-player": "superb", "body": "  ", "review.other": "pass"},
                          revision="", first=False)
    assert review is None
    assert errors == [
        "`note.nope`: no such field on this run's page (its points are review.<id>, its domains rating.<id>)",
        "`review.other`: no such field on this run's page (its points are review.<id>, its domains rating.<id>)",
        ("`review.spin.stationary`: you changed its validator's fail to pass; an override needs a note saying why "
        "(fill `note.spin.stationary`)"),
        ("`review.spin.decay`: 'na' is not a verdict; a point passes or fails (verdicts are binary: there is no "
        "\"not applicable\")"),
        "`rating.single-player`: 'superb' is not a tier; one of flawless, great, passable, scuffed, broken",
        ("`body`: write a few words on the run (what you played, what you saw): a review file needs its prose body, "
        "a draft's too"),
        "`revision`: say what this revision changes (it is kept in the review's history)",
    ]


def test_a_note_is_one_line_and_needs_a_verdict() -> None:
    _, errors = read({"note.spin.decay": "a note\nand more", "body": "x"})
    assert errors == [("`note.spin.decay`: a note is one line (the file keeps it on the verdict's line); put the "
                      "rest in the body"),
                      "`note.spin.decay`: a note without a verdict; choose pass or fail for 'Decay', or clear the note"]
    _, errors = read({"review.spin.decay": ["pass"], "body": "x"})
    assert errors == ["`review.spin.decay`: expected text, got list"]


def test_a_draft_is_a_review_missing_lines_and_a_first_save_needs_no_revision_note() -> None:
    review, errors = read({"body": "Draft."})
    assert errors == [] and review.verdicts == {} and review.ratings == {}  # type: ignore[attr-defined]
    assert read_form({"body": "Draft."}, "", view(), "ana", None, True).note == "first review"


def test_the_page_opens_with_the_saved_review_over_the_automated_verdicts() -> None:
    review, _ = read({"review.spin.stationary": "pass", "note.spin.stationary": "why", "rating.single-player": "great",
                      "body": "x"})
    assert prefilled(view(), None) == {"review.spin.stationary": "fail", "review.spin.decay": ""}
    assert prefilled(view(), review) == {  # type: ignore[arg-type]
        "review.spin.stationary": "pass", "note.spin.stationary": "why", "review.spin.decay": "",
        "rating.single-player": "great", "body": "x"}


def test_one_side_of_evidence_is_full_width_two_sit_side_by_side() -> None:
    reference = Shown("reference: gameplay", url="/media/a.png")
    proof = Shown("proof: clip", url="/media/b.webm", video=True)
    assert _evidence(None, proof).startswith('<div class="evidence single">')
    assert _evidence(reference, None).startswith('<div class="evidence single">')
    assert _evidence(reference, proof).startswith('<div class="evidence pair">') and "<video" in _evidence(reference, proof)
    assert _evidence(None, None) == ""


def test_what_a_run_wrote_is_escaped() -> None:
    page = worklist_page([{"slug": "x", "name": "<script>alert(1)</script>", "heading": "\" onload=\"x",
                           "state": NOT_REVIEWED, "figure": "none"}], "ana", "t", [])
    assert "<script>alert" not in page and "&lt;script&gt;" in page and '" onload="' not in page


def test_the_worklist_states() -> None:
    assert work_state(None) == NOT_REVIEWED
    assert work_state({"complete": False, "stale": False}) == DRAFT
    assert work_state({"complete": True, "stale": True}) == STALE


def test_results_must_hold_a_results_json_with_runs(tmp_path: Path) -> None:
    with pytest.raises(ResultsUnreadable, match="is not a folder"):
        load_runs(tmp_path / "missing")
    with pytest.raises(ResultsUnreadable, match="holds no results.json"):
        load_runs(tmp_path)
    (tmp_path / "results.json").write_text("{broken")
    with pytest.raises(ResultsUnreadable, match="cannot be read as results.json"):
        load_runs(tmp_path)
    (tmp_path / "results.json").write_text(json.dumps({"runs": [{"run": "b"}, {"run": "a/../x"}, "junk"]}))
    runs = load_runs(tmp_path)
    assert [run.name for run in runs] == ["a/../x", "b"]
    assert runs[0].folder.parent == tmp_path and runs[0].slug == "a_.._x"  # one path part, inside RESULTS
    assert runs[0].site is None


def test_the_review_page_needs_a_suite_and_results(pytester: pytest.Pytester, tmp_path: Path) -> None:
    result = pytester.runpytest(f"--tcab-review={tmp_path}")
    result.stderr.fnmatch_lines(["ERROR: --tcab-review needs --tcab-suite=SUITE: the suite whose checklists*"])
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    suite = Path(__file__).resolve().parents[3] / "example-suite"
    result = pytester.runpytest(f"--tcab-suite={suite}", f"--tcab-review={tmp_path}")
    result.stderr.fnmatch_lines([f"ERROR: --tcab-review: {tmp_path} holds no results.json (nor do its folders)*"])
    assert "Traceback" not in result.stdout.str() + result.stderr.str()


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_the_page_serves_on_loopback_until_interrupted_and_stops_cleanly(tmp_path: Path, stop: int) -> None:
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "results.json").write_text(json.dumps({"runs": [{"run": "<b>x</b>", "case": "pong"}]}))
    server = start_page(tmp_path / "results", tmp_path / "reviews")
    try:
        assert server.url.startswith("http://127.0.0.1:")
        with urllib.request.urlopen(server.url, timeout=30) as answer:
            page = answer.read().decode()
        assert "&lt;b&gt;x&lt;/b&gt;" in page and "not reviewed by you" in page
    finally:
        if stop == signal.SIGTERM:
            server.process.send_signal(signal.SIGTERM)
            assert server.process.wait(30) == 0
            server.reader.join(30)
            server.process.stdout.close()  # type: ignore[union-attr]
            assert "Traceback" not in "".join(server.output) and "review page stopped" in "".join(server.output)
        else:
            assert "review page stopped: 0 revisions saved, 0 requests refused" in stop_page(server)


def test_media_are_served_whole_or_by_the_one_range_a_clip_asks_for(tmp_path: Path) -> None:
    import http.client
    import threading

    from pytest_tcab.review.page.server import Reviewing
    from pytest_tcab.review.page.server import ReviewServer
    from pytest_tcab.review.page.view import MediaIndex
    from pytest_tcab.suite import Suite

    clip = tmp_path / "clip.webm"
    clip.write_bytes(bytes(range(100)))
    media = MediaIndex([tmp_path])
    url = media.add(clip)
    assert url is not None and media.add(tmp_path.parent / "elsewhere.png") is None  # outside every root
    state = Reviewing(runs=[], suite=Suite(tmp_path), reviews=tmp_path, reviewer="ana", figures=lambda run: {},
                      save=lambda run, review, note: None, own=lambda run: None, media=media)
    server = ReviewServer(state)
    serving = threading.Thread(target=server.serve_forever, daemon=True)
    serving.start()
    host, port = server.url.removeprefix("http://").rstrip("/").split(":")

    def get(path: str, **headers: str) -> tuple[int, dict[str, str], bytes]:
        connection = http.client.HTTPConnection(host, int(port), timeout=30)
        try:
            connection.request("GET", path, headers=headers)
            answer = connection.getresponse()
            return answer.status, dict(answer.getheaders()), answer.read()
        finally:
            connection.close()

    try:
        status, headers, body = get(url)
        assert status == 200 and body == bytes(range(100)) and headers["Accept-Ranges"] == "bytes"
        assert headers["Content-Type"] == "video/webm" and headers["Cross-Origin-Resource-Policy"] == "same-origin"
        status, headers, body = get(url, Range="bytes=10-19")
        assert status == 206 and body == bytes(range(10, 20)) and headers["Content-Range"] == "bytes 10-19/100"
        assert get(url, Range="bytes=90-")[2] == bytes(range(90, 100))
        assert get(url, Range="bytes=-5")[2] == bytes(range(95, 100))
        assert get(url, Range="bytes=200-300")[0] == 416
        assert get("/media/" + "0" * 24 + ".webm")[0] == 404  # only what a page named
        assert get("/media/../../etc/passwd")[0] == 404
    finally:
        server.httpd.shutdown()
        server.close()
