"""The sweep's statistics against worked examples (Newcombe's published Wilson table, Chen et al.'s
pass@k estimator, a clustered standard error worked by hand), their edge cases, and a seeded
simulation that the 95% bootstrap interval covers the true mean at about its nominal rate."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_tcab.run.report.statistics import RESAMPLES
from pytest_tcab.run.report.statistics import Z_95
from pytest_tcab.run.report.statistics import bootstrap
from pytest_tcab.run.report.statistics import bootstrap_difference
from pytest_tcab.run.report.statistics import bootstrap_interval
from pytest_tcab.run.report.statistics import interval_seed
from pytest_tcab.run.report.statistics import clustered_mean
from pytest_tcab.run.report.statistics import mean_of
from pytest_tcab.run.report.statistics import median_variance
from pytest_tcab.run.report.statistics import pass_at_k
from pytest_tcab.run.report.statistics import pass_curve
from pytest_tcab.run.report.statistics import pass_hat_k
from pytest_tcab.run.report.statistics import percentile_interval
from pytest_tcab.run.report.statistics import replicates
from pytest_tcab.run.report.statistics import runs_needed
from pytest_tcab.run.report.statistics import sample_variance
from pytest_tcab.run.report.statistics import wilson_interval

NAMES = [f"run-{i}" for i in range(40)]


@pytest.mark.parametrize(("passed", "n", "low", "high"), [
    # Newcombe (1998), "Two-sided confidence intervals for the single proportion", Statistics in
    # Medicine 17:857-872, Table I, method 3 (the Wilson score interval without continuity correction).
    (81, 263, 0.2553, 0.3662),
    (15, 148, 0.0624, 0.1605),
    (0, 20, 0.0000, 0.1611),
    (1, 29, 0.0061, 0.1718),
    (29, 29, 0.8830, 1.0000),
])
def test_wilson_matches_the_published_table(passed: int, n: int, low: float, high: float) -> None:
    found = wilson_interval(passed, n)
    assert found[0] is not None and found[1] is not None
    assert (round(found[0], 4), round(found[1], 4)) == (low, high)


def test_wilson_of_no_runs_is_no_interval_and_of_all_or_none_stays_inside_0_1() -> None:
    assert wilson_interval(0, 0) == (None, None)
    assert wilson_interval(0, 1) == (0.0, 0.793451)  # one failure: still up to 0.79, never a point
    assert wilson_interval(1, 1)[1] == 1.0 and wilson_interval(1, 1)[0] == pytest.approx(0.206549)


def chen_pass_at_k(n: int, c: int, k: int) -> float:
    """Chen et al. (2021), "Evaluating Large Language Models Trained on Code", figure 3: their
    numerically stable form of the unbiased estimator, as published."""
    if n - c < k:
        return 1.0
    return float(1.0 - np.prod(1.0 - k / np.arange(n - c + 1, n + 1)))


def test_pass_at_k_is_chen_et_al_s_estimator() -> None:
    assert pass_at_k(10, 3, 1) == pytest.approx(0.3)  # pass@1 is the share that passed
    assert pass_at_k(10, 3, 5) == pytest.approx(1 - 21 / 252)  # 1 - C(7,5)/C(10,5), by hand
    assert pass_at_k(10, 3, 8) == 1.0  # fewer failures than draws: one of them must pass
    assert pass_at_k(200, 13, 100) == pytest.approx(chen_pass_at_k(200, 13, 100))  # the paper's n = 200
    for n in range(1, 13):
        for c in range(n + 1):
            for k in range(1, n + 1):
                assert pass_at_k(n, c, k) == pytest.approx(chen_pass_at_k(n, c, k), abs=1e-12)


def test_pass_hat_k_is_the_chance_that_all_k_pass() -> None:
    assert pass_hat_k(10, 3, 1) == pytest.approx(0.3)
    assert pass_hat_k(10, 3, 2) == pytest.approx(3 / 45)  # C(3,2)/C(10,2)
    assert pass_hat_k(10, 3, 4) == 0.0  # only three passed: four cannot all pass
    assert pass_hat_k(4, 4, 4) == 1.0


def test_pass_at_k_edges_in_words() -> None:
    """No success: every k is 0; every run a success: every k is 1; no runs: no curve; a k or c
    outside 0..n is the caller's mistake, said as one."""
    assert [point["pass_at_k"] for point in pass_curve(5, 0)] == [0.0] * 5
    assert [point["pass_hat_k"] for point in pass_curve(5, 5)] == [1.0] * 5
    assert pass_curve(0, 0) == []
    assert pass_curve(1, 1) == [{"k": 1, "pass_at_k": 1.0, "pass_hat_k": 1.0}]
    with pytest.raises(ValueError, match=r"0 <= c <= n and 1 <= k <= n \(got n=3, c=4, k=1\)"):
        pass_at_k(3, 4, 1)
    with pytest.raises(ValueError, match="k=0"):
        pass_hat_k(3, 1, 0)


@given(st.integers(min_value=1, max_value=30).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n))))
def test_pass_at_k_rises_and_pass_hat_k_falls_with_k(counts: tuple[int, int]) -> None:
    n, c = counts
    curve = pass_curve(n, c)
    assert curve[0]["pass_at_k"] == curve[0]["pass_hat_k"] == pytest.approx(c / n, abs=1e-6)
    assert all(a["pass_at_k"] <= b["pass_at_k"] + 1e-12 for a, b in zip(curve, curve[1:]))
    assert all(a["pass_hat_k"] >= b["pass_hat_k"] - 1e-12 for a, b in zip(curve, curve[1:]))


def test_the_clustered_standard_error_worked_by_hand() -> None:
    """Cases A (runs 1, 0), B (1, 1, 1) and C (0): case means 0.5, 1 and 0, their mean 0.5.
    Miller's clustered variance, each run weighted w = 1/(C n_c): per case, the sum of its runs'
    w (s - 0.5) is (m_c - 0.5) / C, so A 0, B 0.5/3, C -0.5/3; their squares sum to 1/18; times
    the small-sample factor C/(C-1) = 3/2: 1/12, so SE = sqrt(1/12) = 0.288675."""
    clusters = {"A": [1.0, 0.0], "B": [1.0, 1.0, 1.0], "C": [0.0]}
    found = clustered_mean(clusters)
    weights = {case: 1 / (len(clusters) * len(runs)) for case, runs in clusters.items()}
    sandwich = sum(sum(weights[case] * (score - 0.5) for score in runs) ** 2 for case, runs in clusters.items())
    assert sandwich * 3 / 2 == pytest.approx(1 / 12)
    assert (found.value, found.se, found.cases, found.runs, found.reason) == (0.5, 0.288675, 3, 6, None)
    assert found.low == pytest.approx(0.5 - Z_95 * math.sqrt(1 / 12), abs=1e-6)
    assert found.high == pytest.approx(0.5 + Z_95 * math.sqrt(1 / 12), abs=1e-6)


def test_the_clustered_mean_edges_in_words() -> None:
    """No case: no figure; one case: a figure but no spread across cases to measure; a case with
    no runs is left out, never counted as 0; equal cases: a zero error."""
    assert clustered_mean({}).reason == "no case has a figure" and clustered_mean({}).value is None
    one = clustered_mean({"A": [0.2, 0.4]})
    assert (one.value, one.se, one.low) == (0.3, None, None) and "one case" in (one.reason or "")
    assert clustered_mean({"A": [1.0], "B": [], "C": [0.0]}).value == 0.5
    same = clustered_mean({"A": [0.5], "B": [0.5]})
    assert (same.se, same.low, same.high) == (0.0, 0.5, 0.5)


def test_runs_needed_from_the_observed_variances() -> None:
    """Two groups of variance 0.25 each (scores of 0 and 1 half the time): for a half-width of
    0.05, n = ceil(1.96^2 * 0.5 / 0.05^2) = ceil(768.3) = 769 runs per group."""
    assert runs_needed(0.25, 0.25, 0.05).runs == 769
    assert runs_needed(0.25, 0.25, 0.1).runs == 193
    assert runs_needed(0.0001, 0.0, 0.5).runs == 2  # a variance needs two runs: never fewer
    assert runs_needed(None, 0.1, 0.05).reason == "needs at least 2 runs of each group to see how much they vary"
    nothing = runs_needed(0.0, 0.0, 0.05)
    assert nothing.runs is None and "no spread observed" in (nothing.reason or "")
    with pytest.raises(ValueError, match="above 0"):
        runs_needed(0.1, 0.1, 0.0)
    assert sample_variance([1.0]) is None and sample_variance([0.0, 1.0]) == 0.5
    assert median_variance([3.0], ["a"]) is None and median_variance([2.0, 2.0, 2.0], list("abc")) == 0.0


def test_bootstrap_edges_in_words() -> None:
    """No runs: no interval; one run: the interval is its value; all equal: a point; the same runs
    in any order: the same interval."""
    assert bootstrap_interval([], []) == (None, None)
    assert bootstrap([0.7], ["a"], "median") == (0.7, 0.7)
    assert bootstrap_interval([0.4] * 6, list("abcdef")) == (0.4, 0.4)
    scores = [0.1, 0.9, 0.5, 0.7]
    assert bootstrap_interval(scores, list("dcba")) == bootstrap_interval(scores[::-1], list("abcd"))
    assert bootstrap_difference([], [], [1.0], ["b"]) == (None, None)
    assert bootstrap_difference([1.0], ["a"], [0.25], ["b"]) == (0.75, 0.75)
    assert bootstrap_difference([0.5] * 3, list("abc"), [0.5] * 4, list("defg")) == (0.0, 0.0)


@given(st.lists(st.floats(0, 1), min_size=1, max_size=12), st.lists(st.floats(0, 1), min_size=1, max_size=12),
       st.sampled_from(["mean", "median"]))
def test_the_difference_interval_lies_within_what_the_runs_allow(a: list[float], b: list[float],
                                                                 statistic: str) -> None:
    low, high = bootstrap_difference(a, [f"a{i}" for i in range(len(a))], b, [f"b{i}" for i in range(len(b))],
                                     statistic)
    assert low is not None and high is not None
    assert min(a) - max(b) - 1e-6 <= low <= high <= max(a) - min(b) + 1e-6


def test_the_95_percent_bootstrap_interval_covers_the_true_mean_about_95_percent_of_the_time() -> None:
    """2,000 simulated sweeps of 40 runs each, scores drawn from Beta(2, 5) (skewed, in 0..1 like a
    score; true mean 2/7), each given the shipped interval (percentile bootstrap, RESAMPLES
    resamples): the share of intervals holding 2/7 is 93-97%. Seeded, so it is the same every time."""
    rng = np.random.default_rng(20261201)
    sweeps = rng.beta(2.0, 5.0, size=(2000, 40))
    low, high = percentile_interval(replicates(sweeps, rng, mean_of, RESAMPLES))
    covered = float(np.mean((low <= 2 / 7) & (2 / 7 <= high)))
    assert 0.93 <= covered <= 0.97, covered
    # The vectorised core is the one the sweep's own intervals use: one sample, the same numbers.
    one = sweeps[0]
    ordered = np.asarray([value for _, value in sorted(zip(NAMES, one, strict=True))])[None, :]
    again = percentile_interval(replicates(ordered, np.random.default_rng(interval_seed(NAMES)), mean_of))
    assert bootstrap_interval(list(one), NAMES) == (round(float(again[0][0]), 6), round(float(again[1][0]), 6))
