"""The sweep page's figures and markup from plain data: every case ranked by what it measures,
the intervals, the verdict map's order, what a hostile run can write, and the analysis API."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from pytest_tcab import sweep as sweep_api
from pytest_tcab.run.report.compare import compare
from pytest_tcab.run.report.index import render_index
from pytest_tcab.run.report.leaderboard import leaderboard
from pytest_tcab.run.report.leaderboard import skewed_summary
from pytest_tcab.run.report.leaderboard import table_lines
from pytest_tcab.run.report.page.markup import media_url
from pytest_tcab.run.report.page.verdicts import verdict_rows
from pytest_tcab.run.report.statistics import wilson_interval
from pytest_tcab.run.report.sweep import CORRECT
from pytest_tcab.run.report.sweep import FUEL
from pytest_tcab.run.report.sweep import INCORRECT
from pytest_tcab.run.report.sweep import OVER_CEILING
from pytest_tcab.run.report.sweep import sweep_row
from pytest_tcab.run.report.sweep_files import sweep_document

HOSTILE = '<script>alert(1)</script>"><img src=x onerror=alert(2)>'


def perf_run(name: str, fuel: list[int | None], *, harness: str = "h1", model: str = "m1",
             state: str = CORRECT) -> dict[str, Any]:
    """A performance run of results.json: two stress cases with the fuel each spent."""
    outcome = {CORRECT: "passed", OVER_CEILING: "over-ceiling", INCORRECT: "failed"}[state]
    items = [{"kind": "build", "id": "build", "outcome": "passed", "duration_s": 1.0}]
    items += [{"kind": "fuel", "id": f"case{i}", "outcome": outcome if i == 0 else "passed", "fuel": spent,
               "duration_s": 0.5} for i, spent in enumerate(fuel)]
    cases = {f"case{i}": {"outcome": item["outcome"], "fuel": spent} for i, (item, spent) in
             enumerate(zip(items[1:], fuel, strict=True))}
    total = sum(f for f in fuel if f) if state == CORRECT else None
    return {"run": name, "case": "sum", "version": "v1", "variant": "default", "engine": "none",
            "model": model, "harness": harness, "labels": {}, "counts": {}, "items": items,
            "performance": {"correct": state != INCORRECT, "within_ceiling": state == CORRECT,
                            "total_fuel": total, "cases": cases}}


def game_run(name: str, *, harness: str = "h1", model: str = "m1", spin: str = "passed",
             media: list[dict[str, Any]] | None = None, message: str = "") -> dict[str, Any]:
    items = [{"kind": "build", "id": "build", "outcome": "passed", "duration_s": 2.0},
             {"kind": "validate", "id": "spin", "outcome": spin, "duration_s": 1.0, "message": message,
              "media": media or []},
             {"kind": "validate", "id": "score", "outcome": "passed", "duration_s": 1.0},
             {"kind": "requirement", "id": "looks", "outcome": "skipped", "duration_s": 0.0,
              "message": "left for the reviewer"}]
    earned = 2.0 if spin == "passed" else 1.0
    return {"run": name, "case": "pong", "version": "v2", "variant": "base", "engine": "none", "model": model,
            "harness": harness, "labels": {"attempt": name[-1]}, "counts": {}, "items": items,
            "score": {"earned": earned, "available": 2.0}}


def document(runs: list[dict[str, Any]]) -> dict[str, Any]:
    return sweep_document([sweep_row(run, f"{run['run']}/report.html") for run in runs], tool={}, media="all")


def test_a_performance_case_is_ranked_by_the_fuel_of_its_correct_runs() -> None:
    board = document([
        perf_run("a1", [100, 100]), perf_run("a2", [150, 150]), perf_run("a3", [500, 600], state=OVER_CEILING),
        perf_run("a4", [None, 10], state=INCORRECT),
        perf_run("b1", [1000, 1000], harness="h2"), perf_run("b2", [1200, 1200], harness="h2"),
    ])["leaderboard"]
    first, second = board
    figure = first["figure"]
    assert (figure["name"], figure["unit"], figure["better"], figure["statistic"]) == (FUEL, "fuel", "lower", "median")
    assert (figure["value"], figure["n"], figure["over_ceiling"], figure["incorrect"]) == (250.0, 2, 1, 1)
    assert figure["low"] <= figure["value"] <= figure["high"] and figure["q1"] <= figure["value"] <= figure["q3"]
    points = {point["run"]: point for point in figure["points"]}
    assert points["a3"] == {"run": "a3", "value": 1100, "state": OVER_CEILING}  # shown with its fuel, no rank
    assert "a4" not in points  # incorrect: counted beside, never a point of the figure
    assert (points["a1"]["rank"], points["a1"]["of"], points["a1"]["percent_of_best"]) == (1, 4, 80.0)
    assert (points["a1"]["percentile"], points["a2"]["percentile"]) == (100.0, 50.0)
    assert {point["run"]: (point["rank"], point["percentile"]) for point in second["figure"]["points"]} == {
        "b1": (3, 0.0), "b2": (4, 0.0)}
    assert figure["best"] is True and second["figure"]["best"] is False
    assert first["pass_rate"]["passed"] == 2 and first["pass_rate"]["n"] == 4  # the incorrect and over-ceiling fail
    line = table_lines(board)[1]
    assert "median fuel 250 [" in line and "lower is better" in line and "1 over the ceiling; 1 incorrect" in line


def test_a_performance_runs_rank_is_written_in_its_row() -> None:
    page = render_index(document([perf_run("a1", [100, 100]), perf_run("b1", [300, 300], harness="h2")]))
    assert "200 fuel · rank 1 of 2 · 100.0% of the lowest group median · percentile 100" in page
    assert "600 fuel · rank 2 of 2 · 300.0% of the lowest group median · percentile 0" in page


def test_a_tournament_keeps_its_standings() -> None:
    run = {"run": "duel", "case": "duel", "version": "v1", "variant": "default", "engine": "none", "model": None,
           "harness": None, "labels": {}, "counts": {}, "items": [{"kind": "standings", "id": "standings",
                                                                  "outcome": "passed", "duration_s": 1.0}],
           "tournament": {"standings": [{"name": "sharp", "points": 6, "fuel": 1200},
                                        {"name": "house", "points": 3, "house": True}]}}
    data = document([run, game_run("c1")])
    (cell,) = [cell for cell in data["leaderboard"] if cell["case"] == "duel"]
    assert cell["figure"]["name"] == "standings" and cell["unscored"] == 1 and cell["runs"] == 0
    page = render_index(data)
    assert "tournament standings" in page and "<li>sharp: 6 points, 1,200 fuel</li>" in page
    assert "<li>house (house): 3 points</li>" in page


def test_every_run_row_carries_its_figure_with_unit_and_direction() -> None:
    runs = document([perf_run("a", [5, 6]), perf_run("b", [7, 8], state=OVER_CEILING), game_run("c")])["runs"]
    figures = {row["run"]: row["figure"] for row in runs}
    assert figures["a"] == {"name": FUEL, "value": 11, "unit": "fuel", "better": "lower", "state": CORRECT}
    assert figures["b"]["value"] == 15 and figures["b"]["state"] == OVER_CEILING
    assert figures["c"] == {"name": "automated score", "value": 1.0, "unit": "share of points", "better": "higher"}


def test_wilson_and_the_median_interval() -> None:
    assert wilson_interval(0, 0) == (None, None)
    low, high = wilson_interval(3, 10)
    assert (round(low, 3), round(high, 3)) == (0.108, 0.603)
    assert wilson_interval(5, 5)[1] == 1.0 and wilson_interval(5, 5)[0] > 0.5
    summary = skewed_summary([1.0, 2.0, 3.0, 4.0, 100.0], list("abcde"), unit="s", better="lower")
    assert (summary["value"], summary["q1"], summary["q3"]) == (3.0, 2.0, 4.0)
    assert summary["low"] >= 1.0 and summary["high"] <= 100.0
    assert skewed_summary([4.0, 1.0, 3.0, 100.0, 2.0], list("dacEb".lower()), unit="s", better="lower") == summary


def test_the_verdict_map_puts_the_separating_verdicts_first() -> None:
    data = document([game_run("a1"), game_run("a2", spin="failed"), game_run("b1", harness="h2", spin="failed")])
    order = verdict_rows(data["runs"], data["leaderboard"])
    assert [verdict["key"] for verdict in order] == ["validate[spin]", "build", "validate[score]", "requirement[looks]"]
    assert [group["share"] for group in order[0]["groups"]] == [0.5, 0.0]
    assert order[-1]["reviewer"] is True
    page = render_index(data)
    assert "left for the reviewer" in page and 'href="#case=pong&amp;harness=h2&amp;model=m1&amp;item=validate%5Bspin%5D"' in page


def test_nothing_a_run_wrote_can_script_the_page(tmp_path: Path) -> None:
    media = [{"output": HOSTILE, "kind": "image", "path": "javascript:alert(3)"},
             {"output": "clip", "kind": "video", "path": str(tmp_path / "run" / "a b.webm"),
              "poster": str(tmp_path / "run" / "a.png")}]
    runs = [game_run("x1", harness=HOSTILE, model="</script><script>alert(4)</script>", spin="failed",
                     media=media, message=HOSTILE + "\nsecond line")]
    runs[0]["labels"] = {HOSTILE: HOSTILE}
    runs[0]["items"][1]["id"] = HOSTILE
    page = render_index(document(runs), tmp_path)
    assert "<script>alert" not in page and "<img src=x" not in page and "javascript:" not in page
    assert page.count("<script") == 2  # the data island and the page's own script
    island = re.search(r'<script type="application/json" id="tcab-data">(.*?)</script>', page, re.DOTALL)
    assert island is not None
    data = json.loads(island.group(1))
    (item,) = [detail for key, detail in data["details"]["x1"]["items"].items() if key.startswith("validate[<")]
    assert item["message"] == HOSTILE  # the failure's first line only, as text for the script
    assert item["media"] == [{"label": "clip: observed", "url": "run/a%20b.webm", "kind": "video", "poster": "run/a.png"}]
    assert "winner" not in page.lower() and "best" not in page.lower()


def test_media_links_are_relative_or_file_uris_only(tmp_path: Path) -> None:
    assert media_url(str(tmp_path / "r/x.png"), tmp_path) == "r/x.png"
    assert media_url("javascript:alert(1)", tmp_path) is None
    assert media_url("data:text/html,<b>", None) is None
    assert media_url(None, tmp_path) is None


def test_compare_shows_each_groups_figure_now_and_then_and_both_sides_media() -> None:
    still = [{"output": "spin", "kind": "image", "path": "/was/spin.png"}]
    before = document([game_run("a1", media=still), game_run("a2")])["runs"]
    now = document([game_run("a1", spin="failed", media=[dict(still[0], path="/now/spin.png")]), game_run("a2")])["runs"]
    comparison = compare(now, before, "earlier")
    (group,) = comparison["groups"]
    assert (group["was"]["value"], group["now"]["value"], group["better"]) == (1.0, 0.75, "higher")
    (change,) = comparison["runs"]
    sides = change["media"]["validate[spin]"]
    assert sides["was"][0]["path"] == "/was/spin.png" and sides["now"][0]["path"] == "/now/spin.png"
    page = render_index({**document([]), "runs": now, "leaderboard": leaderboard(now), "compare": comparison})
    assert "Flipped verdicts" in page and "/was/spin.png" in page and "/now/spin.png" in page


def test_load_reads_a_sweep_as_flat_rows(tmp_path: Path) -> None:
    data = document([perf_run("a", [5, 6]), game_run("c1")])
    (tmp_path / "sweep.json").write_text(json.dumps(data), encoding="utf-8")
    rows = {row["run"]: row for row in sweep_api.load(tmp_path)}
    assert rows["a"]["figure"] == FUEL and rows["a"]["value"] == 11 and rows["a"]["better"] == "lower"
    assert rows["c1"]["label.attempt"] == "1" and rows["c1"]["score"] == 1.0
    items = sweep_api.load_items(tmp_path / "sweep.json")
    assert {"run": "a", "item": "fuel[case0]", "fuel": 5, "outcome": "passed"}.items() <= next(
        item for item in items if item["item"] == "fuel[case0]").items()
    with pytest.raises(ValueError, match="not a sweep.json"):
        (tmp_path / "odd.json").write_text("[]")
        sweep_api.load(tmp_path / "odd.json")


def test_load_gives_a_data_frame_when_pandas_is_installed(tmp_path: Path) -> None:
    pandas = pytest.importorskip("pandas")
    (tmp_path / "sweep.json").write_text(json.dumps(document([game_run("c1"), game_run("c2")])), encoding="utf-8")
    frame = sweep_api.load(tmp_path, frame=True)
    assert isinstance(frame, pandas.DataFrame) and list(frame["run"]) == ["c1", "c2"]


def test_a_sweep_in_progress_says_how_far_it_came() -> None:
    """The live index.html shows the terminal's progress line until the sweep is done."""
    data = document([perf_run("a1", [100, 100])])
    line = "run 1/40 a1: graded, 2 passed (3 s); about 2 min left <b>"
    live = render_index({**data, "progress": {"finished": 1, "total": 40, "done": False, "line": line}})
    assert 'id="progress"' in live and "about 2 min left &lt;b&gt;" in live
    done = render_index({**data, "progress": {"finished": 40, "total": 40, "done": True, "line": line}})
    assert 'id="progress"' not in done
