"""sweep.json's rows, the leaderboard's statistics, compare and index.html, from plain data."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_tcab.run.report.compare import SweepUnreadable
from pytest_tcab.run.report.compare import change_lines
from pytest_tcab.run.report.compare import compare
from pytest_tcab.run.report.compare import read_sweep_rows
from pytest_tcab.run.report.index import render_index
from pytest_tcab.run.report.leaderboard import leaderboard
from pytest_tcab.run.report.leaderboard import table_lines
from pytest_tcab.run.report.statistics import bootstrap_interval
from pytest_tcab.run.report.statistics import interval_seed
from pytest_tcab.run.report.sweep import BAD_INPUT
from pytest_tcab.run.report.sweep import GRADED
from pytest_tcab.run.report.sweep import NOT_GRADED
from pytest_tcab.run.report.sweep import automated_score
from pytest_tcab.run.report.sweep import bad_input_row
from pytest_tcab.run.report.sweep import sweep_row


def result_run(name: str, *, model: str | None = "m1", harness: str | None = "h1", earned: float = 1.0,
               available: float = 2.0, version: str = "v2.0.0", variant: str = "base",
               outcomes: dict[str, str] | None = None, not_graded: str | None = None) -> dict[str, Any]:
    """A run of results.json as the recorder writes it."""
    items = [{"nodeid": f"x::{key}", "kind": key.partition("[")[0], "id": key.partition("[")[2].rstrip("]") or key,
              "outcome": outcome, "duration_s": 0.5}
             for key, outcome in (outcomes or {"build": "passed", "validate[a]": "passed"}).items()]
    if not_graded:
        items[-1]["not_graded"] = not_graded
    return {"run": name, "case": "pong", "version": version, "variant": variant, "engine": "none",
            "source": f"/runs/{name}", "layout": "catalog", "model": model, "harness": harness,
            "labels": {"temperature": "0.2"}, "counts": {"passed": len(items)}, "items": items,
            "score": {"earned": earned, "available": available}}


def row(name: str, **kwargs: Any) -> dict[str, Any]:
    return sweep_row(result_run(name, **kwargs), f"{name}/report.html")


def test_a_row_says_who_what_and_how_it_ended() -> None:
    made = row("carom-1", earned=3, available=4)
    assert made["status"] == GRADED and made["error"] is None
    assert (made["model"], made["harness"], made["labels"]) == ("m1", "h1", {"temperature": "0.2"})
    assert made["score"] == 0.75 and made["duration_s"] == 1.0
    assert made["items"] == {"build": "passed", "validate[a]": "passed"}


def test_a_judge_restarted_under_a_run_is_counted_on_its_row_the_sweep_and_the_summary() -> None:
    from pytest_tcab.run.report.results import figure_lines
    from pytest_tcab.run.report.sweep_files import sweep_document

    run = result_run("carom-1")
    run["items"][-1]["judge_restarts"] = 2
    made = sweep_row(run, "carom-1/report.html")
    assert made["status"] == GRADED and made["judge_restarts"] == 2
    assert row("carom-2")["judge_restarts"] == 0
    assert sweep_document([made, row("carom-2")], tool={}, media="all")["judge_restarts"] == 2
    said = figure_lines({key: value for key, value in run.items() if key != "score"})  # no checklist to sum up
    assert "judge: restarted 2 times (it died under a script, which then ran once more on a fresh page)" in said


def test_a_run_whose_grading_broke_is_not_graded_and_says_why() -> None:
    made = row("carom-1", not_graded="the judge runtime died")
    assert made["status"] == NOT_GRADED
    assert made["error"] == "not graded: the judge runtime died"


def test_scores_without_a_checklist() -> None:
    requirement = {"run": "r", "requirements": {"score": 0.5}, "items": []}
    assert automated_score(requirement) == 0.5
    perf = {"run": "p", "items": [{"kind": "fuel", "id": "a", "outcome": "passed"},
                                  {"kind": "fuel", "id": "b", "outcome": "over-ceiling"},
                                  {"kind": "proof", "id": "c", "outcome": "skipped"}]}
    assert automated_score(perf) == 0.5
    assert automated_score({"run": "t", "tournament": {}, "items": []}) is None
    assert automated_score({"run": "e", "items": [{"kind": "x", "id": "x", "outcome": "skipped"}]}) is None


def test_the_leaderboard_groups_by_harness_and_model_and_keeps_harnesses_apart() -> None:
    rows = [row("a1", earned=2), row("a2", earned=0), row("b1", harness="h2", earned=2),
            row("c1", not_graded="the browser could not start"), bad_input_row("bad", "/runs/bad", "no run.toml")]
    board = leaderboard(rows)
    assert [(cell["harness"], cell["model"], cell["case"]) for cell in board] == [("h1", "m1", "pong"),
                                                                                  ("h2", "m1", "pong")]
    first = board[0]
    assert (first["runs"], first["mean"], first["not_graded"]) == (2, 0.5, 1)  # not graded: beside, not in
    assert 0.0 <= first["low"] <= first["mean"] <= first["high"] <= 1.0
    assert first["confounded"] == []
    assert board[1]["mean"] == 1.0 and board[1]["low"] == board[1]["high"] == 1.0


def test_a_cell_that_mixes_versions_or_variants_is_confounded() -> None:
    board = leaderboard([row("a1"), row("a2", version="v1.0.0"), row("a3", variant="frenzy")])
    (cell,) = board
    assert cell["confounded"] == ["version", "variant"]
    assert cell["version"] == ["v1.0.0", "v2.0.0"]
    assert any("confounded: mixes versions v1.0.0/v2.0.0" in line for line in table_lines(board))


def test_the_interval_depends_on_the_runs_not_on_their_order() -> None:
    scores, names = [0.1, 0.9, 0.5, 0.7, 0.2], ["e", "a", "c", "b", "d"]
    once = bootstrap_interval(scores, names)
    pairs = sorted(zip(names, scores, strict=True))
    again = bootstrap_interval([score for _, score in pairs], [name for name, _ in pairs])
    assert once == again
    assert interval_seed(names) == interval_seed(sorted(names))
    assert interval_seed(names) != interval_seed(["f", "a", "c", "b", "d"])  # other runs, another seed


@given(st.lists(st.floats(min_value=0, max_value=1), min_size=1, max_size=30))
def test_the_interval_holds_the_mean(scores: list[float]) -> None:
    low, high = bootstrap_interval(scores, [f"r{i}" for i in range(len(scores))])
    mean = sum(scores) / len(scores)
    assert low is not None and high is not None
    assert min(scores) - 1e-6 <= low <= mean + 1e-6 <= high + 2e-6 <= max(scores) + 3e-6


def test_compare_by_name_then_by_case_variant_model_and_harness() -> None:
    before = [row("a", outcomes={"build": "passed", "validate[x]": "passed"}, earned=2),
              row("old-name", model="m2", outcomes={"build": "passed", "validate[x]": "failed"}, earned=0),
              row("gone", model="m3")]
    now = [row("a", outcomes={"build": "passed", "validate[x]": "failed"}, earned=0),
           row("new-name", model="m2", outcomes={"build": "passed", "validate[x]": "passed"}, earned=2),
           row("new", model="m4")]
    comparison = compare(now, before, "earlier")
    assert comparison["added"] == ["new"] and comparison["gone"] == ["gone"]
    changes = {change["run"]: change for change in comparison["runs"]}
    assert changes["a"]["newly_failing"] == ["validate[x]"]
    assert changes["a"]["score"] == {"was": 1.0, "now": 0.0, "change": -1.0}
    assert changes["new-name"]["previous"] == "old-name"
    assert changes["new-name"]["newly_passing"] == ["validate[x]"]
    text = "\n".join(change_lines(comparison))
    assert "a: score 1.000 -> 0.000 (down); newly failing: validate[x]" in text
    assert "new-name (was old-name)" in text and "added: new" in text and "gone: gone" in text


def test_an_unchanged_sweep_has_no_changes() -> None:
    rows = [row("a"), row("b")]
    comparison = compare(rows, rows, "x")
    groups = comparison.pop("groups")
    assert comparison == {"against": "x", "runs": [], "unchanged": 2, "added": [], "gone": []}
    assert [(group["now"], group["name"]) for group in groups] == [(group["was"], "automated score") for group in groups]


def test_an_earlier_sweep_is_read_from_its_folder_or_file(tmp_path: Path) -> None:
    (tmp_path / "sweep.json").write_text(json.dumps({"runs": [row("a")], "leaderboard": []}), encoding="utf-8")
    assert [r["run"] for r in read_sweep_rows(tmp_path, "--tcab-compare")] == ["a"]
    single = tmp_path / "single"
    single.mkdir()
    (single / "results.json").write_text(json.dumps({"runs": [result_run("b")]}), encoding="utf-8")
    assert [r["run"] for r in read_sweep_rows(single, "--tcab-compare")] == ["b"]
    broken = tmp_path / "broken.json"
    broken.write_text("{", encoding="utf-8")
    with pytest.raises(SweepUnreadable, match=r"broken.json:1: not valid JSON"):
        read_sweep_rows(broken, "--tcab-compare")
    with pytest.raises(SweepUnreadable, match="holds no sweep.json or results.json"):
        read_sweep_rows(tmp_path / "single" / "nothing", "--tcab-compare")
    (tmp_path / "odd.json").write_text(json.dumps({"runs": [{"run": "a", "status": "won"}], "leaderboard": []}))
    with pytest.raises(SweepUnreadable, match=r"`runs\[0\].status` is not one of"):
        read_sweep_rows(tmp_path / "odd.json", "--tcab-compare")


def test_index_html_escapes_what_a_run_wrote_and_names_no_winner() -> None:
    rows = [row("<b>a</b>", model="<script>alert(1)</script>"), bad_input_row("bad", "/r", "run.toml:2: unknown key")]
    page = render_index({"runs": rows, "leaderboard": leaderboard(rows), "statuses": {BAD_INPUT: 1}, "media": "all"})
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;" in page
    assert "bad input: run.toml:2: unknown key" in page
    assert "winner" not in page.lower() and "best" not in page.lower()
