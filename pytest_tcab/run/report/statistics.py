"""The statistics of a sweep, in one room: what the leaderboard, the sweep page and the comparisons
compute their intervals, rates and run counts with.

- **Bootstrap intervals** (percentile bootstrap, `RESAMPLES` resamples, 95%) of a mean, a median,
  and the unpaired difference of two groups' means or medians (two groups' runs are independent
  builds, so each group is resampled on its own). A group's resamples are seeded from the sorted
  names of its runs: the same runs always give the same interval, in any order, and a group's
  replicates are made once and shared by its interval and every difference it is in.
- **Wilson score intervals** of a share (a pass rate, a catastrophic rate): unlike the normal
  approximation they stay inside 0..1 and mean something at 0 of n and n of n.
- **The mean over cases with a clustered standard error** (Miller 2024, "Adding Error Bars to
  Evals", section 2.2): runs of one case are not independent draws, so the error is clustered
  by case; with each case weighted equally it is the spread of the per-case figures.
- **pass@k and pass^k** (Chen et al. 2021's unbiased estimator over n runs with c successes, and
  its all-k-succeed twin), for k = 1..n.
- **Runs needed** for a target half-width of a difference's interval, from the observed variances
  (Miller 2024, section 5: the interval narrows as one over the square root of the runs).

Every function says what it cannot compute (no runs, one run, no spread) as None with a reason,
never a division error. numpy is imported only where something is resampled, so a session of
single runs never loads it.
"""

from __future__ import annotations

import functools
import hashlib
import math
import statistics as stdlib_statistics
from collections.abc import Callable
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING
from typing import Any

if TYPE_CHECKING:
    import numpy as np

RESAMPLES = 4000
CONFIDENCE = 0.95
Z_95 = 1.959963984540054
"""The standard normal quantile of a two-sided 95% interval (Wilson's, the clustered interval's)."""
_CHUNK_DRAWS = 8_000_000
"""At most this many resampled values are held at once (64 MB of indices), however many samples."""

Interval = tuple[float | None, float | None]
Statistic = Callable[["np.ndarray"], "np.ndarray"]
"""Reduces the last axis of an array of resamples: its mean or its median."""


def interval_seed(names: Sequence[str]) -> int:
    """A seed that depends on which runs an interval covers and on nothing else (not their order)."""
    digest = hashlib.sha256("\n".join(sorted(names)).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big")


def mean_of(samples: np.ndarray) -> np.ndarray:
    return samples.mean(axis=-1)


def median_of(samples: np.ndarray) -> np.ndarray:
    import numpy as np

    return np.median(samples, axis=-1)


STATISTICS: dict[str, Statistic] = {"mean": mean_of, "median": median_of}
"""The statistics a bootstrap resamples, by the name a figure gives them."""


# -- bootstrap ---------------------------------------------------------------------------------


def bootstrap_interval(values: Sequence[float], names: Sequence[str]) -> Interval:
    """The percentile bootstrap interval of the mean of `values` (of the runs `names`)."""
    return bootstrap(values, names, "mean")


def bootstrap(values: Sequence[float], names: Sequence[str], statistic: str) -> Interval:
    """The percentile bootstrap interval of `statistic` (`mean` or `median`) over `values`, the
    values of the runs `names`, resampled in name order with a seed from the sorted names.
    No runs: no interval (None, None); one run: the interval is that run's value (nothing varies)."""
    if not values:
        return None, None
    if len(values) == 1:
        return round(values[0], 6), round(values[0], 6)
    return _interval(_keyed(values, names), statistic)


@functools.lru_cache(maxsize=1024)
def _interval(runs: tuple[tuple[str, float], ...], statistic: str) -> Interval:
    """The interval of one group's replicates, cached like them: a sweep rewritten as it goes asks
    for every group's interval at each rewrite, and one run changes one group."""
    low, high = percentile_interval(resampled(runs, statistic))
    return round(float(low), 6), round(float(high), 6)


def _keyed(values: Sequence[float], names: Sequence[str]) -> tuple[tuple[str, float], ...]:
    """The runs in name order, each with its value: what a resampling depends on, and nothing else."""
    return tuple(sorted((str(name), float(value)) for name, value in zip(names, values, strict=True)))


@functools.lru_cache(maxsize=512)
def resampled(runs: tuple[tuple[str, float], ...], statistic: str) -> np.ndarray:
    """`RESAMPLES` bootstrap replicates of `statistic` over `runs` (name, value), seeded by their
    names: one group's, computed once and shared by its interval, its variance and every
    difference it is in (a sweep rewritten as it goes asks again and again)."""
    import numpy as np

    ordered = np.asarray([[value for _, value in runs]], dtype=float)
    rng = np.random.default_rng(interval_seed([name for name, _ in runs]))
    found = replicates(ordered, rng, STATISTICS[statistic])[0]
    found.setflags(write=False)  # shared by the cache: nobody may change it
    return found


def replicates(samples: np.ndarray, rng: np.random.Generator, statistic: Statistic,
               resamples: int = RESAMPLES) -> np.ndarray:
    """`resamples` bootstrap replicates of `statistic` for each row of `samples` (S samples of n
    values each; S x resamples): vectorised, so a simulation of thousands of sweeps takes seconds."""
    import numpy as np

    count, n = samples.shape
    rows = max(1, _CHUNK_DRAWS // (resamples * n))
    found = []
    for start in range(0, count, rows):
        chunk = samples[start:start + rows]
        picks = rng.integers(0, n, size=(len(chunk), resamples * n))
        found.append(statistic(np.take_along_axis(chunk, picks, axis=1).reshape(len(chunk), resamples, n)))
    return np.concatenate(found)


def percentile_interval(replicated: np.ndarray) -> tuple[Any, Any]:
    """The percentile interval (95%) of bootstrap replicates, along their last axis."""
    import numpy as np

    tail = (1.0 - CONFIDENCE) / 2 * 100
    low, high = np.percentile(replicated, [tail, 100 - tail], axis=-1)
    return low, high


def bootstrap_difference(a: Sequence[float], a_names: Sequence[str], b: Sequence[float], b_names: Sequence[str],
                         statistic: str = "mean") -> Interval:
    """The unpaired percentile bootstrap interval of `statistic(a) - statistic(b)`: each group is
    resampled on its own (their runs are independent builds), each seeded by its own runs' names,
    and the i-th replicates subtracted. Either group without runs: no interval. Both of one run:
    the interval is the one difference."""
    if not a or not b:
        return None, None
    return _difference(_keyed(a, a_names), _keyed(b, b_names), statistic)


@functools.lru_cache(maxsize=1024)
def _difference(a: tuple[tuple[str, float], ...], b: tuple[tuple[str, float], ...], statistic: str) -> Interval:
    """The interval of two groups' difference, cached: a live sweep's rewrite recomputes only the
    pairs of the group its last run changed (the percentiles, not the replicates, cost the most)."""
    low, high = percentile_interval(resampled(a, statistic) - resampled(b, statistic))
    return round(float(low), 6), round(float(high), 6)


def median_variance(values: Sequence[float], names: Sequence[str]) -> float | None:
    """The variance of one run's contribution to a median: n times the bootstrap variance of the
    median (the median's own variance shrinks as 1/n like a mean's). None below two runs."""
    if len(values) < 2:
        return None
    return float(len(values) * resampled(_keyed(values, names), "median").var())


def sample_variance(values: Sequence[float]) -> float | None:
    """The sample variance (n - 1 in the denominator); None below two values (nothing to spread)."""
    return _variance(tuple(values)) if len(values) >= 2 else None


@functools.lru_cache(maxsize=1024)
def _variance(values: tuple[float, ...]) -> float:
    """Cached: the exact (fractions-based) stdlib variance is slow, and a live sweep asks for the
    same groups' at each rewrite."""
    return stdlib_statistics.variance(values)


# -- shares ------------------------------------------------------------------------------------


def wilson_interval(passed: int, n: int) -> Interval:
    """The 95% Wilson score interval of the share `passed / n` (None, None when n is 0)."""
    if n == 0:
        return None, None
    share = passed / n
    denominator = 1 + Z_95**2 / n
    centre = (share + Z_95**2 / (2 * n)) / denominator
    spread = Z_95 * math.sqrt(share * (1 - share) / n + Z_95**2 / (4 * n * n)) / denominator
    return round(max(0.0, centre - spread), 6), round(min(1.0, centre + spread), 6)


def pass_at_k(n: int, c: int, k: int) -> float:
    """Chen et al. 2021's unbiased estimator of pass@k: the chance that at least one of k runs
    drawn (without replacement) from n runs with c successes succeeds, 1 - C(n-c, k) / C(n, k)."""
    _check_counts(n, c, k)
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def pass_hat_k(n: int, c: int, k: int) -> float:
    """pass^k: the chance that all k runs drawn from n runs with c successes succeed,
    C(c, k) / C(n, k) (the unbiased estimator of p^k; tau-bench's pass^k)."""
    _check_counts(n, c, k)
    return math.comb(c, k) / math.comb(n, k)


def _check_counts(n: int, c: int, k: int) -> None:
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"pass@k needs 0 <= c <= n and 1 <= k <= n (got n={n}, c={c}, k={k})")


def pass_curve(n: int, c: int) -> list[dict[str, Any]]:
    """pass@k and pass^k for k = 1..n (at k = 1 both are c / n); no runs, no curve."""
    return [{"k": k, "pass_at_k": round(pass_at_k(n, c, k), 6), "pass_hat_k": round(pass_hat_k(n, c, k), 6)}
            for k in range(1, n + 1)]


# -- across cases ------------------------------------------------------------------------------


@dataclass(frozen=True)
class ClusteredMean:
    """The mean over cases of each case's mean, with its standard error clustered by case."""

    value: float | None
    se: float | None
    low: float | None
    high: float | None
    cases: int
    runs: int
    reason: str | None
    """Why there is no value or no standard error, in words; None when both are there."""


def clustered_mean(clusters: Mapping[str, Sequence[float]]) -> ClusteredMean:
    """The mean over cases (each case weighted equally) of its runs' mean, with a standard error
    clustered by case (Miller 2024, eq. 4 with each run weighted 1 / (C n_c) and the usual
    C / (C - 1) small-sample factor) and its normal 95% interval.

    With each case weighted equally the clustered variance is the spread of the per-case means:
    SE^2 = sum_c (m_c - m)^2 / (C (C - 1)). Runs within a case move together (they share its
    difficulty), so they add no independent information the way more cases do. A case with no
    runs is left out (never counted as zero); one case has no spread across cases to measure."""
    means = [stdlib_statistics.fmean(values) for values in clusters.values() if values]
    runs = sum(len(values) for values in clusters.values())
    if not means:
        return ClusteredMean(None, None, None, None, 0, runs, "no case has a figure")
    value = stdlib_statistics.fmean(means)
    if len(means) == 1:
        return ClusteredMean(round(value, 6), None, None, None, 1, runs,
                             "one case: no spread across cases to measure a clustered error by")
    se = math.sqrt(sum((mean - value) ** 2 for mean in means) / (len(means) * (len(means) - 1)))
    return ClusteredMean(round(value, 6), round(se, 6), round(value - Z_95 * se, 6), round(value + Z_95 * se, 6),
                         len(means), runs, None)


# -- planning ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class RunsNeeded:
    """How many runs per group would bring a difference's 95% interval to a half-width."""

    runs: int | None
    half_width: float
    reason: str | None
    """Why there is no count, in words; None when there is one."""


def runs_needed(variance_a: float | None, variance_b: float | None, half_width: float) -> RunsNeeded:
    """Runs per group for the 95% interval of the difference of two independent groups' figures to
    have half-width `half_width`: n = ceil(z^2 (s_a^2 + s_b^2) / h^2), from each group's observed
    per-run variance (Miller 2024, section 5). At least 2 (a variance needs two runs)."""
    if half_width <= 0:
        raise ValueError(f"a target half-width must be above 0 (got {half_width})")
    if variance_a is None or variance_b is None:
        return RunsNeeded(None, half_width, "needs at least 2 runs of each group to see how much they vary")
    spread = variance_a + variance_b
    if spread == 0:
        return RunsNeeded(None, half_width, "no spread observed in either group: more runs would not narrow "
                                            "an interval that is already a point (more may still show a spread)")
    return RunsNeeded(max(2, math.ceil(Z_95**2 * spread / half_width**2 - 1e-9)), half_width, None)
