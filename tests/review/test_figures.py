"""The reviewed figures beside the automated ones: terminal lines, GitHub's step summary, report.html."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pytest_tcab.review.fold import fold
from pytest_tcab.run.report.html import write_report
from pytest_tcab.run.report.results import summary_lines
from pytest_tcab.step_summary import run_markdown
from tests.review.test_fold import COMPLETE
from tests.review.test_fold import OTHER
from tests.review.test_fold import results_run
from tests.review.test_fold import review

HOSTILE = "<script>alert('x')</script>"


def reviewed_run() -> dict[str, Any]:
    run = {**results_run(), "case": "pong", "version": "v2.0.0", "engine": "none", "source": "/runs/carom-base",
           "counts": {"passed": 1}, "items": []}
    run["score"].update({"failed_weight": 1.0, "pending_weight": 3.0, "decided_weight": 3.0})
    hostile = COMPLETE.replace("---\nPlayed", f"review.spin.stationary: pass the drift is wind {HOSTILE}\n---\nPlayed")
    stale = f"---\nbuild: {OTHER}\n" + COMPLETE.removeprefix("---\n")
    run["review"] = fold(run, [review(hostile), review(stale, "bo"), review("---\nrating.versus: great\n---\nx\n", "cy")],
                         folder=Path("reviews/carom-base"))
    return run


def test_the_summary_says_the_automated_and_the_reviewed_figures() -> None:
    assert summary_lines(reviewed_run()) == [
        "score: 2 of 3 automated points earned (1 failed); 6 declared, 3 left for the reviewer",
        "reviewed score: 5 of 6 points (83%), rating: passable (the score and rating of 1 complete, current review)",
        "review ana: 5 of 6, overall passable (unpinned, 1 override)",
        "review bo: stale (the build changed since), counts nowhere",
        "review cy: incomplete (misses 3 verdicts and the rating of single-player), counts nowhere (unpinned)",
    ]


def test_a_run_without_a_complete_review_says_so() -> None:
    run = reviewed_run()
    run["review"] = fold(run, [], folder=Path("reviews/carom-base"))
    assert summary_lines(run)[1] == ("reviewed score: none yet, no complete and current review "
                                     "(0 found under reviews/carom-base)")


def test_the_step_summary_carries_the_reviewed_figures() -> None:
    markdown = run_markdown(reviewed_run())
    assert "- reviewed score: 5 of 6 points (83%), rating: passable" in markdown
    assert "- review bo: stale (the build changed since), counts nowhere" in markdown


def test_the_report_shows_each_review_escaping_what_a_reviewer_wrote(tmp_path: Path) -> None:
    text = write_report({"tool": {}, "runs": [reviewed_run()]}, tmp_path).read_text(encoding="utf-8")
    assert "reviewed score <b>5</b> of <b>6</b> points (83%) · rating <b>passable</b>" in text
    assert "spin.stationary: fail &rarr; pass (the drift is wind &lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;)" in text
    assert "stale: the build changed since (counts nowhere)" in text
    assert "incomplete: misses spin.decay, scoring.point, serve, rating.single-player" in text
    assert HOSTILE not in text


def test_the_sweeps_automated_score_counts_only_decided_points() -> None:
    from pytest_tcab.run.report.sweep import automated_score

    decided = {"run": "a", "items": [], "score": {"earned": 3.0, "available": 4.0, "declared": 6.0}}
    assert automated_score(decided) == 0.75
    nothing_decided = {"run": "b", "score": {"earned": 0.0, "available": 0.0, "declared": 6.0},
                       "items": [{"kind": "build", "id": "build", "outcome": "passed"}]}
    assert automated_score(nothing_decided) is None  # all the reviewer's: never the build's pass rate


def test_the_reports_domains_show_the_counted_reviews_ratings(tmp_path: Path) -> None:
    run = reviewed_run()
    run["domains"] = {"scale": ["flawless", "great", "passable", "scuffed", "broken"], "overall": None,
                      "set": [{"id": "single-player", "name": "Single Player", "description": "Solo.", "common": True,
                               "rating": None, "items": []},
                              {"id": "versus", "name": "Versus", "description": "Two.", "common": True,
                               "rating": None, "items": []}]}
    text = write_report({"tool": {}, "runs": [run]}, tmp_path).read_text(encoding="utf-8")
    assert "<b>great</b> <small>(ana: great)</small>" in text  # bo is stale and cy incomplete: not counted
    assert "<b>passable</b> <small>(ana: passable)</small>" in text
    assert "the overall rating is the worst domain rating (passable)" in text
