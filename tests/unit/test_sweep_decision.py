"""What an operator decides on, from plain sweep rows: catastrophic runs found from their items and
kept apart (or counted as 0), differences between groups with their intervals and the runs needed,
the suite-wide figure clustered by case, pass@k, both percentiles of a performance case, and the
terminal's lines."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_tcab.options import parse_group
from pytest_tcab.options import parse_width
from pytest_tcab.run.report.catastrophes import BUILD
from pytest_tcab.run.report.catastrophes import MODULE
from pytest_tcab.run.report.catastrophes import PAGE
from pytest_tcab.run.report.catastrophes import catastrophe
from pytest_tcab.run.report.comparisons import difference_lines
from pytest_tcab.run.report.index import render_index
from pytest_tcab.run.report.leaderboard import Rules
from pytest_tcab.run.report.sweep import sweep_row
from pytest_tcab.run.report.sweep_files import sweep_document
from tests.unit.test_sweep_page import perf_run

LOAD_FAILED = "validation/spin.mjs: the build could not be loaded: could not load http://127.0.0.1:4000/: net::ERR_EMPTY_RESPONSE"


def checklist_run(name: str, *, model: str = "steady", harness: str = "loop", case: str = "pong", earned: float = 3.0,
                  build: str = "passed", messages: dict[str, str] | None = None,
                  outcomes: dict[str, str] | None = None) -> dict[str, Any]:
    """A checklist run of results.json: a build and three verdicts worth one point each; a failed
    build fails every verdict as the run wing does ("not run: build failed")."""
    found = outcomes or {"validate[a]": "passed" if earned >= 1 else "failed",
                         "validate[b]": "passed" if earned >= 2 else "failed",
                         "validate[c]": "passed" if earned >= 3 else "failed"}
    items = [{"kind": "build", "id": "build", "outcome": build, "duration_s": 2.0,
              **({"message": "npm run build exited 1"} if build == "failed" else {})}]
    for key, outcome in found.items():
        message = (messages or {}).get(key) or ("not run: build failed (npm run build exited 1)"
                                                if build == "failed" else "verdict false" if outcome == "failed" else None)
        items.append({"kind": key.partition("[")[0], "id": key.partition("[")[2].rstrip("]"), "outcome": outcome,
                      "duration_s": 1.0, **({"message": message} if message else {})})
    return {"run": name, "case": case, "version": "v1", "variant": "base", "engine": "none", "model": model,
            "harness": harness, "labels": {}, "counts": {}, "items": items,
            "score": {"earned": 0.0 if build == "failed" else earned, "available": 3.0}}


def rows(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [sweep_row(run, f"{run['run']}/report.html") for run in runs]


def document(runs: list[dict[str, Any]], rules: Rules | None = None) -> dict[str, Any]:
    return sweep_document(rows(runs), tool={}, media="all", rules=rules)


def cell(data: dict[str, Any], model: str, case: str = "pong") -> dict[str, Any]:
    return next(entry for entry in data["leaderboard"] if entry["model"] == model and entry["case"] == case)


# -- catastrophic runs -------------------------------------------------------------------------


def test_a_failed_build_an_unloaded_page_and_an_uninstantiated_module_are_catastrophic() -> None:
    (built, broke, unloaded, loaded_once) = rows([
        checklist_run("ok"), checklist_run("broke", build="failed"),
        checklist_run("unloaded", earned=0, messages={key: LOAD_FAILED for key in ("validate[a]", "validate[b]", "validate[c]")}),
        checklist_run("once", earned=1, messages={"validate[b]": LOAD_FAILED}),
    ])
    assert catastrophe(built) is None and catastrophe(broke) == BUILD
    assert catastrophe(unloaded) == PAGE
    assert catastrophe(loaded_once) is None  # its page loaded for validate[a], which passed: it loaded
    check = rows([checklist_run("check", earned=0, outcomes={"check[title]": "failed"},
                                messages={"check[title]": "check 'title': the page answered HTTP 404 Not Found for "
                                                          "http://127.0.0.1:4000/"})])[0]
    assert catastrophe(check) == PAGE
    module = perf_run("m1", [None, None], state="incorrect")
    module["items"][1]["message"] = "instantiation failed: unknown import: `env::host` has not been defined"
    assert catastrophe(rows([module])[0]) == MODULE


def test_a_build_cannot_word_its_own_failure_into_a_catastrophe() -> None:
    """What the page or module writes comes after the grader's own words: a verdict whose reason
    quotes a load failure, a page that throws one, a module that prints one, is no catastrophe."""
    quoted = {"validate[a]": f'verdict "a" is false: notes: {LOAD_FAILED}',
              "validate[b]": f"validation/b.mjs: window.game.step(...) threw Error: x: the build could not be loaded: "
                             "could not load http://x/: gone",
              "validate[c]": "validation/c.mjs: the page threw while driven: the build could not be loaded: "
                             "could not load http://x/: y"}
    assert catastrophe(rows([checklist_run("liar", earned=0, messages=quoted)])[0]) is None
    module = perf_run("m2", [None, None], state="incorrect")
    module["items"][1]["message"] = "wrong answer: the module wrote: instantiation failed: fake"
    assert catastrophe(rows([module])[0]) is None


def test_one_models_builds_failing_half_the_time_show_as_a_rate_apart_from_its_score() -> None:
    """The held-out check: model `flaky` builds in two of four runs. By default its score is over
    the two that built, and its catastrophic rate (2 of 4, with a Wilson interval) stands beside;
    under `--tcab-catastrophic=zero` the two failed builds are in its score as 0."""
    runs = [checklist_run(f"steady-{i}", earned=3.0 if i % 2 else 2.0) for i in range(4)]
    runs += [checklist_run("flaky-0", model="flaky"), checklist_run("flaky-1", model="flaky", earned=2.0),
             checklist_run("flaky-2", model="flaky", build="failed"),
             checklist_run("flaky-3", model="flaky", build="failed")]
    apart = document(runs)
    flaky = cell(apart, "flaky")
    assert (flaky["runs"], flaky["figure"]["n"], flaky["mean"]) == (2, 2, pytest.approx(5 / 6, abs=1e-6))
    rate = flaky["catastrophic"]
    assert (rate["rule"], rate["runs"], rate["n"], rate["value"], rate["kinds"]) == ("apart", 2, 4, 0.5, {BUILD: 2})
    assert (rate["low"], rate["high"]) == (0.150039, 0.849961)
    assert rate["catastrophic_runs"] == ["flaky-2", "flaky-3"]
    assert cell(apart, "steady")["catastrophic"]["runs"] == 0
    assert apart["rules"]["catastrophic"] == "apart" and "kept out" in apart["rules"]["catastrophic_rule"]
    page = render_index(apart)
    assert "2 of 4 catastrophic (build failed; kept out of the score): rate 0.50, Wilson 95% 0.15-0.85" in page
    assert "kept out of the figures and counted as the group&#x27;s catastrophic rate" in page

    zero = document(runs, Rules(catastrophic="zero"))
    flaky = cell(zero, "flaky")
    assert (flaky["runs"], flaky["mean"]) == (4, pytest.approx(5 / 12, abs=1e-6))
    assert sorted(point["value"] for point in flaky["figure"]["points"]) == [0.0, 0.0, pytest.approx(2 / 3), 1.0]
    assert flaky["catastrophic"]["rule"] == "zero" and flaky["catastrophic"]["runs"] == 2
    assert flaky["pass_rate"]["n"] == 4 and flaky["pass_rate"]["passed"] == 1
    assert "count as 0 in the score" in zero["rules"]["catastrophic_rule"]
    assert "in the score as 0" in render_index(zero)


# -- differences -------------------------------------------------------------------------------


def test_every_pair_of_a_cases_groups_has_its_difference_interval_and_runs_needed() -> None:
    runs = [checklist_run(f"a{i}", model="alpha", earned=3.0) for i in range(4)]
    runs += [checklist_run(f"b{i}", model="beta", earned=1.0 + i % 2) for i in range(4)]
    runs += [checklist_run(f"c{i}", model="gamma", earned=2.0 + i % 2) for i in range(4)]
    data = document(runs)
    pairs = {(entry["a"]["model"], entry["b"]["model"]): entry for entry in data["differences"]}
    assert sorted(pairs) == [("alpha", "beta"), ("alpha", "gamma"), ("beta", "gamma")]
    alpha_beta = pairs[("alpha", "beta")]
    assert (alpha_beta["name"], alpha_beta["statistic"], alpha_beta["better"]) == ("automated score", "mean", "higher")
    figure = alpha_beta["figure"]
    assert figure["difference"] == pytest.approx(0.5, abs=1e-6) and figure["n"] == [4, 4]
    assert 0 < figure["low"] <= figure["difference"] <= figure["high"]
    assert figure["excludes_zero"] is True and "excludes 0: the groups differ on these runs" in figure["says"]
    needed = figure["runs_needed"]
    # alpha never varies; beta's scores 1/3, 2/3, 1/3, 2/3 have a sample variance of 1/27:
    # ceil(1.96^2 (0 + 1/27) / 0.05^2) = ceil(56.9) = 57 runs per group
    assert (needed["runs"], needed["half_width"], needed["target_width"]) == (57, 0.05, 0.05)
    beta_gamma = pairs[("beta", "gamma")]["figure"]
    assert beta_gamma["low"] < 0 < beta_gamma["high"] or beta_gamma["excludes_zero"] is True
    assert alpha_beta["duration"]["difference"] == 0.0 and "ratio" in alpha_beta["duration"]
    assert "winner" not in str(data["differences"]).lower() and "best" not in str(data["differences"]).lower()


def test_a_baseline_compares_each_group_with_it_and_one_that_names_no_group_says_so() -> None:
    runs = [checklist_run(f"{model}{i}", model=model, earned=1.0 + i) for model in ("alpha", "beta", "gamma")
            for i in range(2)]
    data = document(runs, Rules(baseline=("loop", "beta")))
    assert [(entry["a"]["model"], entry["b"]["model"]) for entry in data["differences"]] == [
        ("alpha", "beta"), ("gamma", "beta")]
    assert data["rules"]["baseline"] == "loop/beta" and data["rules"]["baseline_problem"] is None
    wrong = document(runs, Rules(baseline=("loop", "delta")))
    assert wrong["rules"]["baseline_problem"] == (
        "--tcab-baseline=loop/delta names no (harness, model) group of the sweep; its groups are loop/alpha, "
        "loop/beta, loop/gamma (HARNESS/MODEL as run.toml gives them, - for a part it does not give)")
    assert len(wrong["differences"]) == 3  # every pair still, and the session fails with the problem


def test_a_single_run_per_group_is_no_interval_to_tell_them_apart_by() -> None:
    data = document([checklist_run("a", model="alpha"), checklist_run("b", model="beta", earned=1.0)])
    (entry,) = data["differences"]
    assert entry["figure"]["difference"] == pytest.approx(2 / 3, abs=1e-6)
    assert entry["figure"]["excludes_zero"] is None and "single run" in entry["figure"]["says"]
    assert entry["figure"]["runs_needed"]["runs"] is None
    (line,) = difference_lines(data)
    assert line.startswith("pong: loop / alpha - loop / beta: mean score +0.667; a group has a single run")


def test_a_performance_case_differs_by_median_fuel_with_the_ratio_of_medians() -> None:
    runs = [perf_run(f"a{i}", [100 + i, 100]) for i in range(3)]
    runs += [perf_run(f"b{i}", [300 + 10 * i, 300], model="m2") for i in range(3)]
    data = document(runs)
    (entry,) = data["differences"]
    assert (entry["name"], entry["statistic"], entry["unit"], entry["better"]) == ("fuel total", "median", "fuel", "lower")
    figure = entry["figure"]
    assert (figure["difference"], figure["ratio"], figure["excludes_zero"]) == (-409.0, pytest.approx(201 / 610, abs=1e-6), True)
    assert figure["runs_needed"]["half_width"] == pytest.approx(0.05 * 201)  # a share of the smaller median
    assert "ratio of medians 0.33" in difference_lines(data)[0]


# -- across the suite --------------------------------------------------------------------------


def test_the_suite_wide_figure_is_per_kind_clustered_by_case_and_names_the_cases_not_run() -> None:
    runs = [checklist_run(f"{case}-a{i}", model="alpha", case=case, earned=earned)
            for case, earned in (("pong", 3.0), ("tetris", 1.5), ("snake", 0.0)) for i in range(2)]
    runs += [checklist_run(f"pong-b{i}", model="beta", earned=2.0) for i in range(3)]
    runs += [perf_run("sum-a", [100, 100], model="alpha")]
    data = document(runs)
    scores = {entry["model"]: entry for entry in data["suite"] if entry["name"] == "automated score"}
    alpha = scores["alpha"]
    assert (alpha["value"], alpha["cases"], alpha["runs"]) == (0.5, 3, 6)
    assert alpha["se"] == pytest.approx(0.288675, abs=1e-6) and alpha["low"] < 0.5 < alpha["high"]
    assert alpha["per_case"] == {"pong": 1.0, "snake": 0.0, "tetris": 0.5}
    beta = scores["beta"]
    assert beta["cases_not_run"] == ["snake", "tetris"] and beta["cases"] == 1 and beta["value"] == pytest.approx(2 / 3, abs=1e-6)
    assert beta["se"] is None and "one case" in beta["reason"]  # never averaged with zeros for the cases it did not run
    (fuel,) = [entry for entry in data["suite"] if entry["name"] == "fuel total"]
    assert (fuel["model"], fuel["value"], fuel["unit"], fuel["better"]) == ("alpha", 200.0, "fuel", "lower")


def test_pass_at_k_per_group_with_two_runs_or_more() -> None:
    data = document([checklist_run(f"a{i}", earned=3.0 if i < 2 else 1.0) for i in range(4)]
                    + [checklist_run("b", model="single")])
    curve = cell(data, "steady")["pass_at_k"]
    assert [point["k"] for point in curve] == [1, 2, 3, 4]
    assert curve[0] == {"k": 1, "pass_at_k": 0.5, "pass_hat_k": 0.5}
    assert curve[1] == {"k": 2, "pass_at_k": pytest.approx(5 / 6, abs=1e-6), "pass_hat_k": pytest.approx(1 / 6, abs=1e-6)}
    assert curve[3] == {"k": 4, "pass_at_k": 1.0, "pass_hat_k": 0.0}
    assert cell(data, "single")["pass_at_k"] == []


def test_a_performance_case_has_the_pages_percentile_and_the_per_model_best() -> None:
    """The page's percentile: among every correct run of the case; the Test Cabinet's per-model
    best: each group once, at its cheapest correct run."""
    board = document([perf_run("a1", [100, 100]), perf_run("a2", [400, 400]),
                      perf_run("b1", [150, 150], model="m2"), perf_run("b2", [160, 160], model="m2"),
                      perf_run("c1", [None, 1], model="m3", state="incorrect")])["leaderboard"]
    first, second, third = board
    points = {point["run"]: point for cell in board for point in cell["figure"]["points"]}
    assert {run: point["percentile_of_runs"] for run, point in points.items()} == {
        "a1": 100.0, "a2": 25.0, "b1": 75.0, "b2": 50.0}
    assert first["figure"]["per_model_best"] == {"run": "a1", "value": 200, "rank": 1, "of": 2, "percentile": 100.0}
    assert second["figure"]["per_model_best"] == {"run": "b1", "value": 300, "rank": 2, "of": 2, "percentile": 50.0}
    assert third["figure"]["per_model_best"] is None  # no correct run: not ranked


def test_the_options_parse_a_group_and_a_width() -> None:
    import argparse

    assert parse_group("planner/openai/gpt-5") == ("planner", "openai/gpt-5")  # a model name may hold a slash
    assert parse_group("-/m1") == ("", "m1")
    for bad in ("planner", "/m", "h/"):
        with pytest.raises(argparse.ArgumentTypeError, match="is not HARNESS/MODEL"):
            parse_group(bad)
    assert parse_width("0.1") == 0.1
    for bad in ("0", "-1", "wide", "inf"):
        with pytest.raises(argparse.ArgumentTypeError):
            parse_width(bad)


def test_nothing_a_run_wrote_can_script_the_comparisons() -> None:
    """Harness and model names reach the differences matrix, the pass@k legend and the suite table
    as text only."""
    from tests.unit.test_sweep_page import HOSTILE

    runs = [checklist_run(f"{name}{i}", harness=HOSTILE, model=name + HOSTILE, earned=1.0 + i % 2)
            for name in ("a", "b") for i in range(2)]
    page = render_index(document(runs))
    assert "<script>alert" not in page and "<img src=x" not in page and page.count("<script") == 2
    assert 'class="differences"' in page and 'class="pass-at-k"' in page and 'id="suite"' in page
