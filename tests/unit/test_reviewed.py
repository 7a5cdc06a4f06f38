"""The sweep's review figures from plain data in results.json's shapes: a row's review summary, a
group's reviewed score and ratings, runs awaiting review, override rates, reviewer agreement and
Cohen's kappa (against Wikipedia's worked examples), the page's section and the analysis API."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_tcab import sweep as sweep_api
from pytest_tcab.run.report.index import render_index
from pytest_tcab.run.report.leaderboard import bootstrap_interval
from pytest_tcab.run.report.leaderboard import table_lines
from pytest_tcab.run.report.reviewed import agreement
from pytest_tcab.run.report.reviewed import cohen_kappa
from pytest_tcab.run.report.sweep import sweep_row
from pytest_tcab.run.report.sweep_files import sweep_document

HOSTILE = '<script>alert(1)</script>"><img src=x onerror=alert(2)>'
AUTOMATED = {"spin.stationary": "failed", "spin.moving": "passed", "scoring.point": "passed"}
LEFT = ("spin.decay", "scoring.display")


def review(reviewer: str, *, rating: str = "great", verdicts: dict[str, str] | None = None,
           overrides: dict[str, str] | None = None, complete: bool = True, stale: bool = False,
           value: float = 0.8) -> dict[str, Any]:
    """One review of results.json's `review.reviews[]`: the automated verdicts kept unless overridden
    (`overrides`: id -> note), the points left for the reviewer given by `verdicts`."""
    overrides = overrides or {}
    effective: dict[str, Any] = {}
    for key, outcome in AUTOMATED.items():
        automated = "pass" if outcome == "passed" else "fail"
        flipped = {"pass": "fail", "fail": "pass"}[automated]
        effective[key] = ({"outcome": flipped, "by": "override", "note": overrides[key]} if key in overrides
                          else {"outcome": automated, "by": "validator", "note": None})
    for key in LEFT:
        if key in (verdicts or {}):
            effective[key] = {"outcome": (verdicts or {})[key], "by": "reviewer", "note": None}
    return {
        "reviewer": reviewer, "when": "2026-12-01T22:00:00Z", "file": f"reviews/x/{reviewer}.md", "build": None,
        "pinned": False, "stale": stale, "complete": complete,
        "score": {"earned": value * 7, "available": 7.0, "value": value},
        "ratings": {"single-player": rating}, "overall": rating, "verdicts": effective,
        "overrides": [{"id": key, "automated": "pass" if AUTOMATED[key] == "passed" else "fail",
                       "reviewed": effective[key]["outcome"], "note": note} for key, note in overrides.items()],
        "missing": {"verdicts": [], "domains": []},
    }


def checklist_run(name: str, reviews: list[dict[str, Any]] | None = None, *, harness: str = "h1",
                  model: str = "m1") -> dict[str, Any]:
    """A checklist run of results.json (the Carom build's verdicts) with the `review` the review
    wing folds its reviews into."""
    items = [{"kind": "build", "id": "build", "outcome": "passed", "duration_s": 1.0}]
    items += [{"kind": "validate", "id": key, "outcome": outcome, "duration_s": 1.0} for key, outcome in AUTOMATED.items()]
    counted = [one for one in reviews or [] if one["complete"] and not one["stale"]]
    tiers = ("flawless", "great", "passable", "scuffed", "broken")
    return {
        "run": name, "case": "pong", "version": "v2.0.0", "variant": "base", "engine": "none", "model": model,
        "harness": harness, "labels": {}, "counts": {"passed": 3, "failed": 1}, "items": items,
        "score": {"earned": 2.0, "available": 3.0}, "domains": {"set": [{"id": "single-player"}]},
        "review": {
            "build": "0" * 64,
            "score": ({"earned": 0.0, "available": 7.0,
                       "value": sum(one["score"]["value"] for one in counted) / len(counted)} if counted else None),
            "rating": max((one["overall"] for one in counted), key=tiers.index) if counted else None,
            "reviewed": len(counted), "reviews_total": len(reviews or []), "complete": bool(counted),
            "reviews": reviews or [],
        },
    }


def rows_of(*runs: dict[str, Any]) -> list[dict[str, Any]]:
    return [sweep_row(run, f"{run['run']}/report.html") for run in runs]


def document(*runs: dict[str, Any]) -> dict[str, Any]:
    return sweep_document(rows_of(*runs), tool={}, media="all")


# -- a row -----------------------------------------------------------------------------------


def test_a_rows_review_is_its_runs_reviewed_score_rating_and_reviews() -> None:
    run = checklist_run("a1", [review("ana", value=0.9, rating="great", verdicts={"spin.decay": "pass"}),
                               review("ben", value=0.7, rating="scuffed", overrides={"spin.moving": "curves late"}),
                               review("cy", complete=False), review("dee", stale=True, rating="broken")])
    (row,) = rows_of(run)
    summary = row["review"]
    assert (summary["score"], summary["rating"], summary["reviewed"], summary["awaiting"]) == (0.8, "scuffed", 2, False)
    ana, ben, cy, dee = summary["reviews"]
    assert ana == {"reviewer": "ana", "complete": True, "stale": False, "overall": "great",
                   "ratings": {"single-player": "great"},
                   "verdicts": {"spin.stationary": "fail", "spin.moving": "pass", "scoring.point": "pass",
                                "spin.decay": "pass"}, "overrides": []}
    assert ben["overrides"] == ["spin.moving"] and ben["verdicts"]["spin.moving"] == "fail"
    assert (cy["complete"], dee["stale"]) == (False, True)  # listed, counted nowhere


def test_a_checklist_run_without_a_counting_review_awaits_one_and_other_runs_do_not() -> None:
    unreviewed, drafted = checklist_run("a1"), checklist_run("a2", [review("ana", complete=False)])
    before_the_review_wing = {key: value for key, value in checklist_run("a3").items() if key != "review"}
    performance = {"run": "p1", "case": "sum", "items": [{"kind": "fuel", "id": "c", "outcome": "passed"}],
                   "performance": {"correct": True, "within_ceiling": True, "total_fuel": 3, "cases": {}}}
    not_graded = {**checklist_run("a4"), "not_graded": "the browser could not start"}
    rows = {row["run"]: row["review"] for row in rows_of(unreviewed, drafted, before_the_review_wing, performance,
                                                          not_graded)}
    assert {name: summary["awaiting"] for name, summary in rows.items()} == {
        "a1": True, "a2": True, "a3": True, "p1": False, "a4": False}
    assert rows["p1"] == {"score": None, "rating": None, "reviewed": 0, "awaiting": False, "reviews": []}


# -- a leaderboard cell --------------------------------------------------------------------


def test_a_groups_reviewed_score_is_the_mean_over_its_reviewed_runs_with_the_automated_seeding() -> None:
    runs = [checklist_run("a1", [review("ana", value=0.9, rating="great")]),
            checklist_run("a2", [review("ana", value=0.5, rating="scuffed"), review("ben", value=0.7, rating="great")]),
            checklist_run("a3", [review("ana", value=1.0, rating="flawless")]),
            checklist_run("a4"), checklist_run("a5", [review("ben", stale=True)])]
    (cell,) = document(*runs)["leaderboard"]
    reviewed = cell["review"]
    assert (reviewed["n"], reviewed["of"], reviewed["awaiting"]) == (3, 5, 2)
    assert reviewed["value"] == pytest.approx((0.9 + 0.6 + 1.0) / 3, abs=1e-6)
    assert (reviewed["low"], reviewed["high"]) == bootstrap_interval([0.9, 0.6, 1.0], ["a1", "a2", "a3"])
    assert reviewed["low"] < reviewed["value"] < reviewed["high"]
    assert reviewed["ratings"] == {"flawless": 1, "great": 1, "passable": 0, "scuffed": 1, "broken": 0}
    assert (reviewed["best"], reviewed["worst"]) == ("flawless", "scuffed")  # a2's rating: the worse of its two
    assert [point["run"] for point in reviewed["points"]] == ["a1", "a2", "a3"]
    assert cell["runs"] == 5  # the automated score still counts every graded run
    again = document(*reversed(runs))["leaderboard"][0]["review"]
    assert again == reviewed  # the same runs, the same interval, whatever their order


def test_the_terminal_table_says_the_reviewed_score_ratings_and_awaiting_runs_beside_the_figure() -> None:
    board = document(checklist_run("a1", [review("ana", value=0.9, rating="great")]),
                     checklist_run("a2", [review("ana", value=0.7, rating="scuffed")]), checklist_run("a3"),
                     checklist_run("b1", harness="h2"))["leaderboard"]
    first, second = table_lines(board)[1:]
    assert first.endswith("1 awaiting review; reviewed 0.800 [0.700, 0.900], 2 of 3 graded; rated great to scuffed")
    assert second.endswith("  1 awaiting review")
    page = render_index({"runs": [], "leaderboard": board, "statuses": {}})
    table = page.split('id="leaderboard-table"', 1)[1].split("</table>", 1)[0]
    assert table.count(">1 awaiting review<") == 2  # the page's table counts them beside the figure too


# -- overrides and agreement ----------------------------------------------------------------


def test_override_rates_per_verdict_count_every_counting_review_of_runs_where_a_validator_decided() -> None:
    reviews = document(
        checklist_run("a1", [review("ana", overrides={"spin.stationary": "it does stop"}),
                             review("ben", overrides={"spin.stationary": "stops, late"})]),
        checklist_run("a2", [review("ana", overrides={"spin.moving": "no curve at all"}), review("ben")]),
        checklist_run("a3", [review("ana", stale=True, overrides={"scoring.point": "x"})]),  # counts nowhere
        checklist_run("a4"))["reviews"]
    rates = {rate["verdict"]: rate for rate in reviews["overrides"]}
    assert [rate["verdict"] for rate in reviews["overrides"]] == ["spin.stationary", "spin.moving", "scoring.point"]
    assert rates["spin.stationary"] == {"case": "pong", "verdict": "spin.stationary", "reviews": 4, "runs": 2,
                                        "overrides": 2, "to_fail": 0, "to_pass": 2, "share": 0.5}
    assert (rates["spin.moving"]["to_fail"], rates["spin.moving"]["share"]) == (1, 0.25)
    assert rates["scoring.point"]["overrides"] == 0 and rates["scoring.point"]["reviews"] == 4
    assert (reviews["reviewers"], reviews["reviewed"], reviews["awaiting"]) == (["ana", "ben"], 2, 2)


def test_agreement_per_verdict_and_domain_for_each_pair_of_reviewers() -> None:
    runs = [checklist_run("a1", [review("ana", rating="great", verdicts={"spin.decay": "pass"}),
                                 review("ben", rating="great", verdicts={"spin.decay": "fail"}),
                                 review("cy", rating="scuffed", verdicts={"spin.decay": "pass"})]),
            checklist_run("a2", [review("ana", rating="passable", verdicts={"spin.decay": "fail"}),
                                 review("ben", rating="great", verdicts={"spin.decay": "fail"})])]
    found = {(tuple(entry["reviewers"]), entry["what"], entry["id"]): entry for entry in document(*runs)["reviews"]["agreement"]}
    assert {pair for pair, _, _ in found} == {("ana", "ben"), ("ana", "cy"), ("ben", "cy")}
    decay = found[("ana", "ben"), "verdict", "spin.decay"]
    assert (decay["runs"], decay["agreeing"], decay["share"]) == (2, 1, 0.5)
    assert decay["kappa"] == 0.0 and decay["kappa_note"] is None  # ana: pass, fail; ben: fail, fail
    domain = found[("ana", "ben"), "domain", "single-player"]
    assert (domain["runs"], domain["agreeing"], domain["kappa"]) == (2, 1, 0.0)
    # Both kept the validator's pass on every run: no variance, kappa undefined, said in words.
    moving = found[("ana", "ben"), "verdict", "spin.moving"]
    assert (moving["share"], moving["kappa"]) == (1.0, None)
    assert moving["kappa_note"].startswith("undefined: both reviewers gave every run the same verdict (pass)")
    assert found[("ana", "cy"), "verdict", "spin.decay"]["runs"] == 1  # cy reviewed a1 only


def test_cohen_kappa_matches_wikipedias_worked_examples() -> None:
    """en.wikipedia.org/wiki/Cohen%27s_kappa, "Simple example": 50 grant proposals, readers A and B:
    20 both yes, 15 both no, 5 A yes B no, 10 A no B yes; p_o = 0.7, p_e = 0.5, kappa = 0.4. And
    "Same percentages but different numbers": 45/15/25/15 gives 0.1304, 25/35/5/35 gives 0.2593."""
    def table(yes_yes: int, yes_no: int, no_yes: int, no_no: int) -> list[tuple[str, str]]:
        return ([("yes", "yes")] * yes_yes + [("yes", "no")] * yes_no + [("no", "yes")] * no_yes
                + [("no", "no")] * no_no)

    assert cohen_kappa(table(20, 5, 10, 15)) == (pytest.approx(0.4), None)
    assert cohen_kappa(table(45, 15, 25, 15))[0] == pytest.approx(0.1304, abs=5e-5)
    assert cohen_kappa(table(25, 35, 5, 35))[0] == pytest.approx(0.2593, abs=5e-5)
    assert cohen_kappa(table(10, 0, 0, 10)) == (1.0, None)


def test_cohen_kappa_on_the_same_example_built_from_fifty_reviewed_runs() -> None:
    """The simple example again, as two reviewers' verdicts on a point left for them in 50 runs."""
    outcomes = [("pass", "pass")] * 20 + [("pass", "fail")] * 5 + [("fail", "pass")] * 10 + [("fail", "fail")] * 15
    runs = [checklist_run(f"r{index:02}", [review("ana", verdicts={"spin.decay": first}),
                                           review("ben", verdicts={"spin.decay": second})])
            for index, (first, second) in enumerate(outcomes)]
    (decay,) = [entry for entry in agreement(rows_of(*runs)) if entry["id"] == "spin.decay"]
    assert (decay["runs"], decay["agreeing"], decay["share"], decay["kappa"]) == (50, 35, 0.7, 0.4)


def test_cohen_kappas_undefined_cases_are_words_never_a_division_error() -> None:
    kappa, note = cohen_kappa([("great", "great")] * 3, "rating")
    assert kappa is None and note is not None and "same rating (great)" in note and "divides by zero" in note
    assert cohen_kappa([]) == (None, "undefined: no run both reviewers judged")
    assert cohen_kappa([("pass", "fail")]) == (0.0, None)  # one run, disagreeing: defined, no better than chance
    assert cohen_kappa([("pass", "pass"), ("pass", "fail")])[0] == 0.0


# -- the page and the analysis API ------------------------------------------------------------


def test_the_page_has_a_reviews_section_with_groups_overrides_and_agreement() -> None:
    page = render_index(document(
        checklist_run("a1", [review("ana", value=0.9, overrides={"spin.moving": "no curve"}), review("ben", value=0.7)]),
        checklist_run("a2")))
    section = page.split('<section id="reviews">', 1)[1].split("</section>", 1)[0]
    assert "1 runs reviewed, 1 awaiting review; reviewers: ana, ben." in section
    assert 'id="reviewed-table"' in section and "0.800 [0.800, 0.800]" in section and "1 of 2" in section
    assert 'id="overrides-table"' in section and "<code>spin.moving</code>" in section and "1 of 2" in section
    assert 'id="agreement-table"' in section and "ana &amp; ben" in section and "undefined: both reviewers" in section
    assert page.index('id="reviews"') < page.index('id="runs"')


def test_a_sweep_without_checklists_says_so_and_hostile_names_are_text() -> None:
    plain = {"run": "p1", "case": "sum", "items": [{"kind": "fuel", "id": "c", "outcome": "passed"}],
             "performance": {"correct": True, "within_ceiling": True, "total_fuel": 3, "cases": {}}}
    assert "No run of this sweep has a checklist for a reviewer." in render_index(document(plain, {**plain, "run": "p2"}))
    hostile = review(HOSTILE, overrides={"spin.moving": HOSTILE})
    hostile["verdicts"][HOSTILE] = {"outcome": "pass", "by": "reviewer", "note": None}
    page = render_index(document(checklist_run("a1", [hostile, review("ben")], harness=HOSTILE), checklist_run("a2")))
    section = page.split('<section id="reviews">', 1)[1].split("</section>", 1)[0]
    assert "<script>" not in section and "<img" not in section and "&lt;script&gt;" in section


def test_load_carries_the_reviewed_fields_and_load_reviews_one_record_per_review(tmp_path: Path) -> None:
    data = document(checklist_run("a1", [review("ana", value=0.9, rating="great", verdicts={"spin.decay": "pass"}),
                                         review("ben", value=0.7, overrides={"spin.moving": "late"})]),
                    checklist_run("a2"))
    (tmp_path / "sweep.json").write_text(json.dumps(data), encoding="utf-8")
    records = {record["run"]: record for record in sweep_api.load(tmp_path)}
    assert {key: records["a1"][key] for key in ("review.score", "review.rating", "review.reviewed",
                                                "review.awaiting")} == {
        "review.score": 0.8, "review.rating": "great", "review.reviewed": 2, "review.awaiting": False}
    assert records["a2"]["review.awaiting"] is True and records["a2"]["review.score"] is None
    ana, ben = sweep_api.load_reviews(tmp_path)
    assert (ana["reviewer"], ana["rating.single-player"], ana["verdict.spin.decay"], ana["overrides"]) == (
        "ana", "great", "pass", "")
    assert (ben["run"], ben["verdict.spin.moving"], ben["overrides"], ben["complete"]) == ("a1", "fail", "spin.moving",
                                                                                          True)


def test_rows_of_merged_and_resumed_sweeps_carry_the_review_as_results_json_gave_it(tmp_path: Path) -> None:
    """A merge, a compare and a results.json-only resume build rows from results.json runs; a
    journal's rows are the rows themselves: the same `review` either way."""
    from pytest_tcab.run.report import journal
    from pytest_tcab.run.report.compare import read_sweep_rows

    run = checklist_run("a1", [review("ana", value=0.9), review("ben", value=0.7)])
    (tmp_path / "results.json").write_text(json.dumps({"runs": [run, checklist_run("a2")]}), encoding="utf-8")
    read = {row["run"]: row["review"] for row in read_sweep_rows(tmp_path, "--tcab-merge")}
    assert read == {row["run"]: row["review"] for row in rows_of(run, checklist_run("a2"))}
    assert read["a1"]["score"] == 0.8 and read["a2"]["awaiting"] is True
    journal.start(tmp_path)
    journal.append(tmp_path, rows_of(run)[0])
    assert journal.journal_rows(tmp_path)["a1"]["review"] == read["a1"]


def test_a_malformed_review_in_an_earlier_file_counts_nowhere_and_breaks_nothing() -> None:
    broken = [{**checklist_run("a1"), "review": {"score": {"value": "high"}, "rating": "superb", "reviewed": "2",
                                                 "reviews": {"ana": 1}}},
              {**checklist_run("a2"), "review": {"reviews": [{"reviewer": "x", "complete": True, "verdicts": [1],
                                                             "ratings": "great", "overrides": 3}]}}]
    rows = rows_of(*broken)
    rows.append({**rows[0], "run": "a3", "review": 7})
    data = sweep_document(rows, tool={}, media="all")
    assert [row["review"]["score"] for row in data["runs"][:2]] == [None, None]
    assert data["leaderboard"][0]["review"]["n"] == 0
    assert data["reviews"]["overrides"] == [] or all(rate["overrides"] == 0 for rate in data["reviews"]["overrides"])
    assert render_index(data).count('id="reviews"') == 1
