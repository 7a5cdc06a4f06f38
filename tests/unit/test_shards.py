"""How runs are dealt between shards: by hash (adding a run moves no other) or by a duration plan
(longest first onto the lightest shard), and a kept run read back for a resume."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_tcab.run.report.carried import kept
from pytest_tcab.shards import Plan
from pytest_tcab.shards import PlanUnreadable
from pytest_tcab.shards import balanced
from pytest_tcab.shards import deal
from pytest_tcab.shards import hash_index
from pytest_tcab.shards import read_plan


def test_deal_puts_the_longest_first_onto_the_lightest_shard() -> None:
    assert deal({"a": 5.0, "b": 4.0, "c": 3.0, "d": 3.0, "e": 1.0}, 2) == {"a": 0, "b": 1, "c": 1, "d": 0, "e": 1}


@given(st.dictionaries(st.text(min_size=1, max_size=6), st.floats(0, 1000), min_size=1, max_size=60),
       st.integers(1, 9))
def test_a_dealt_shard_is_never_above_the_mean_by_more_than_its_longest_run(weights: dict[str, float],
                                                                              count: int) -> None:
    shards = deal(weights, count)
    assert set(shards) == set(weights) and set(shards.values()) <= set(range(count))
    loads = [sum(weights[label] for label, index in shards.items() if index == shard) for shard in range(count)]
    assert max(loads) <= sum(loads) / count + max(weights.values()) + 1e-6
    if count >= len(weights):  # one index per run, as an engine's own queue wants it
        assert len(set(shards.values())) == len(weights)


def sweep_json(folder: Path, rows: list[tuple[str, str, float, str]]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "sweep.json").write_text(json.dumps({"runs": [
        {"run": run, "case": case, "duration_s": seconds, "status": status} for run, case, seconds, status in rows]}))
    return folder


def test_a_run_the_earlier_sweep_did_not_grade_weighs_its_case_median_else_every_run(tmp_path: Path) -> None:
    previous = sweep_json(tmp_path / "before", [("p1", "pong", 10.0, "graded"), ("p2", "pong", 20.0, "graded"),
                                                ("p3", "pong", 90.0, "graded"), ("q1", "quiz", 1.0, "graded"),
                                                ("x", "pong", 500.0, "not graded")])
    plan = balanced({"p1": "pong", "new-pong": "pong", "new-other": "carom", "x": "pong", "bad": None}, 2, previous)
    assert plan.weights == {"p1": 10.0, "new-pong": 20.0, "new-other": 15.0, "x": 20.0, "bad": 15.0}
    assert plan.name.startswith("sha256:") and plan.name != Plan(2).name == "hash"
    again = balanced({"bad": None, "x": "pong", "new-other": "carom", "new-pong": "pong", "p1": "pong"}, 2, previous)
    assert again.name == plan.name  # the same runs and durations, the same plan, whatever the order given
    assert plan.shard_of(1) == {"index": 1, "count": 2, "plan": plan.name}


def test_a_plan_written_is_read_back_and_a_torn_one_is_an_error(tmp_path: Path) -> None:
    plan = balanced({"a": None, "b": None, "c": None}, 2, sweep_json(tmp_path / "before", []))
    (tmp_path / "shard-plan.json").write_text(json.dumps(plan.as_json()))
    assert read_plan(tmp_path) == plan and read_plan(tmp_path / "nowhere") is None
    (tmp_path / "shard-plan.json").write_text('{"count": 2, "shards": {"a": 5}}')
    with pytest.raises(PlanUnreadable, match=r"shard-plan.json: not a shard plan"):
        read_plan(tmp_path)
    with pytest.raises(PlanUnreadable, match=r"--tcab-shard-plan: .*/missing does not exist; give an earlier sweep"):
        balanced({"a": None}, 2, tmp_path / "missing")


def test_hash_shards_do_not_move_when_runs_are_added() -> None:
    assert [hash_index(name, 4) for name in ("a-hero", "b-game", "c-game", "d-hero")] == [1, 1, 2, 3]
    assert Plan(4).index_of("c-game") == 2


def test_a_kept_run_is_one_whose_results_json_names_it(tmp_path: Path) -> None:
    for name, text in {"whole": json.dumps({"shard": {"index": 0}, "runs": [{"run": "whole", "items": []}]}),
                       "torn": '{"runs": [{"run": "torn", "ite', "other": json.dumps({"runs": [{"run": "x", "items": []}]})
                       }.items():
        (tmp_path / name).mkdir()
        (tmp_path / name / "results.json").write_text(text)
    rows = [{"run": name, "status": "graded"} for name in ("whole", "torn", "other", "gone")]
    resumed = kept(tmp_path, rows)
    assert [row["run"] for row in resumed.rows] == ["whole"] and list(resumed.runs) == ["whole"]
    assert resumed.shards == {"whole": {"index": 0}}
