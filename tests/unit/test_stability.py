"""Verdict stability over a sweep's regraded runs: counted per case and verdict, least stable first,
and shown on the page as text."""

from __future__ import annotations

from typing import Any

from pytest_tcab.run.report.attempts import graded_after_retry
from pytest_tcab.run.report.attempts import row_fields
from pytest_tcab.run.report.stability import stability_section
from pytest_tcab.run.report.stability import verdict_stability


def _row(run: str, outcomes: dict[str, list[str]], final: dict[str, str], case: str = "pong") -> dict[str, Any]:
    return {"run": run, "case": case, "gradings": outcomes, "items": final}


def test_each_verdict_counts_the_runs_it_agreed_with_itself_on() -> None:
    rows = [
        _row("a", {"validate[moves]": ["passed"] * 3, "validate[coin]": ["passed", "failed", "passed"]},
             {"validate[moves]": "passed", "validate[coin]": "unstable"}),
        _row("b", {"validate[moves]": ["failed"] * 3, "validate[coin]": ["failed"] * 3},
             {"validate[moves]": "failed", "validate[coin]": "failed"}),
        _row("c", {}, {"validate[moves]": "passed"}),  # not regraded: in no count
    ]
    coin, moves = verdict_stability(rows)
    assert (coin["item"], coin["runs"], coin["stable"], coin["unstable"], coin["share"]) == (
        "validate[coin]", 2, 1, 1, 0.5)
    assert coin["unstable_runs"] == [{"run": "a", "outcomes": ["passed", "failed", "passed"]}]
    assert (moves["runs"], moves["stable"], moves["share"], moves["gradings"]) == (2, 2, 1.0, 3)
    assert verdict_stability([rows[2]]) == []


def test_the_page_shows_what_a_run_wrote_as_text() -> None:
    rows = [_row("<img src=x onerror=alert(1)>", {"validate[<b>]": ["passed", "failed"]}, {"validate[<b>]": "unstable"})]
    html = stability_section(verdict_stability(rows))
    assert "<img" not in html and "<b>" not in html and "&lt;img" in html and "1/1" not in html and "0/1" in html


def test_a_row_says_it_was_graded_only_after_a_retry() -> None:
    retried = row_fields({"attempts": [{"attempt": 1, "status": "not graded", "not_graded": ["no Node"]},
                                       {"attempt": 2, "status": "graded", "not_graded": []}], "items": []})
    once = row_fields({"attempts": [{"attempt": 1, "status": "graded", "not_graded": []}], "items": []})
    never = row_fields({"attempts": [{"attempt": 1, "status": "not graded", "not_graded": ["x"]},
                                     {"attempt": 2, "status": "not graded", "not_graded": ["x"]}], "items": []})
    assert (retried["graded_after_retry"], once["graded_after_retry"], never["graded_after_retry"]) == (True, False, False)
    assert graded_after_retry([retried, once, never]) == 1
