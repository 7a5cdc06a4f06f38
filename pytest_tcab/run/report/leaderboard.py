"""The leaderboard of a sweep: per (harness, model) and case, the figure its case is ranked by,
over the group's graded runs, with how many there were and a 95% interval.

Every case type is ranked by what it measures, on the public Test Cabinet's statistical terms:
a checklist or game case by the automated score (the mean, with a seeded bootstrap interval);
a performance case by the fuel total of each correct run (a skewed figure: the median, its
interquartile range and a bootstrap interval on the median; lower is better), each correct
run's rank in the case, its percentiles (among every correct run of the case, and the Test
Cabinet's per-model best) and its fuel against the lowest group median; over-ceiling runs are
points of their own, marked, and incorrect runs are counted beside, never in the median; a
tournament keeps its standings. Beside the figure, every group has its pass rate (the share of
runs that earned every automated point, with a 95% Wilson score interval), pass@k and pass^k,
its catastrophic rate (runs whose build failed, page never loaded or module never instantiated,
with a Wilson interval) and its duration (median, interquartile range, bootstrap interval on
the median). Each figure says its unit and which way is better (`better`: `higher` or `lower`).

Runs are grouped as the public Test Cabinet groups them: by the (harness, model) pair, never
merging harnesses. A run that was not graded is counted beside the mean, never in it; so is a
graded run without a score of its own (a tournament) or a partial one (`-k`, `-m` left items
out), and by default a catastrophic one (`Rules`). The interval's resampling is seeded from the
sorted names of the runs it covers, so the same runs always give the same interval. A cell
whose runs mix case versions or variants (or engines), or were graded by different versions of
a tool, or with different grading options, is flagged as confounded: its mean averages different tests. The statistics themselves
live in `statistics`; the board presents the figures; it names no winner."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import TYPE_CHECKING
from typing import Any

from pytest_tcab.options import CATASTROPHIC_RULES
from pytest_tcab.run.report.attempts import graded_after_retry
from pytest_tcab.run.report.catastrophes import KINDS
from pytest_tcab.run.report.catastrophes import catastrophe
from pytest_tcab.run.report.statistics import CONFIDENCE
from pytest_tcab.run.report.statistics import RESAMPLES
from pytest_tcab.run.report.statistics import bootstrap
from pytest_tcab.run.report.statistics import bootstrap_interval
from pytest_tcab.run.report.statistics import pass_curve
from pytest_tcab.run.report.statistics import wilson_interval
from pytest_tcab.run.report.reviewed import cell_review
from pytest_tcab.run.report.reviewed import review_aside
from pytest_tcab.run.report.sweep import CORRECT
from pytest_tcab.run.report.sweep import FUEL
from pytest_tcab.run.report.sweep import GRADED
from pytest_tcab.run.report.sweep import INCORRECT
from pytest_tcab.run.report.sweep import NOT_GRADED
from pytest_tcab.run.report.sweep import OVER_CEILING
from pytest_tcab.run.report.sweep import SCORE
from pytest_tcab.run.report.sweep import STANDINGS
from pytest_tcab.run.versions import mixed_options
from pytest_tcab.run.versions import mixed_tools

if TYPE_CHECKING:
    import pytest

APART, ZERO = CATASTROPHIC_RULES
"""A catastrophic run kept out of the score and counted as a rate of its own (the public Test
Cabinet's rule), or counted in the score as 0 (Harbor's)."""
RULE_WORDS = {
    APART: "catastrophic runs (build failed, page never loaded, module never instantiated) are kept out of "
           "the figures and counted as the group's catastrophic rate (the public Test Cabinet's rule)",
    ZERO: "catastrophic runs (build failed, page never loaded, module never instantiated) count as 0 in the "
          "score (--tcab-catastrophic=zero, Harbor's rule); their rate is shown beside it too",
}


@dataclass(frozen=True)
class Rules:
    """How the board is figured: what a catastrophic run counts as, the group every other is compared
    with (None: every pair), and the half-width the runs needed are counted for."""

    catastrophic: str = APART
    baseline: tuple[str, str] | None = None
    """(harness, model), `""` for a part run.toml did not give."""
    target_width: float = 0.05

    @classmethod
    def of(cls, config: pytest.Config) -> Rules:
        """The rules `--tcab-catastrophic`, `--tcab-baseline` and `--tcab-target-width` (or their ini twins) give."""
        return cls(catastrophic=config.getoption("tcab_catastrophic") or APART,
                   baseline=config.getoption("tcab_baseline"),
                   target_width=config.getoption("tcab_target_width") or 0.05)

    def document(self) -> dict[str, Any]:
        """What sweep.json says of the rules its figures followed."""
        return {"catastrophic": self.catastrophic, "catastrophic_rule": RULE_WORDS[self.catastrophic],
                "baseline": None if self.baseline is None else "/".join(part or "-" for part in self.baseline),
                "target_width": self.target_width, "confidence": CONFIDENCE, "resamples": RESAMPLES}


def leaderboard(rows: list[dict[str, Any]], rules: Rules | None = None) -> list[dict[str, Any]]:
    """One entry per (harness, model) and case, sorted by harness, model and case."""
    rules = rules or Rules()
    cells: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for row in rows:
        if row.get("case") is None:  # bad input that names no case: a row of the sweep, no cell
            continue
        key = (row.get("harness") or "", row.get("model") or "", row["case"])
        cells.setdefault(key, []).append(row)
    board = [_cell(harness, model, case, members, rules) for (harness, model, case), members in sorted(cells.items())]
    _rank_fuel(board)
    return board


def _cell(harness: str, model: str, case: str, rows: list[dict[str, Any]], rules: Rules) -> dict[str, Any]:
    """One group's figures on one case. Each key is one concern's call: a new figure is one more line."""
    kept, catastrophic = _workable(rows, rules)
    scored = sorted((row for row in kept if _scored(row)), key=lambda row: row["run"])
    scores = [_score(row, rules) for row in scored]
    low, high = bootstrap_interval(scores, [row["run"] for row in scored])
    return {
        "harness": harness or None,
        "model": model or None,
        "case": case,
        "runs": len(scores),
        "mean": round(statistics.fmean(scores), 6) if scores else None,
        "low": low,
        "high": high,
        "not_graded": sum(row["status"] == NOT_GRADED for row in rows),
        "unscored": sum(row["status"] == GRADED and not _scored(row) for row in rows),
        "graded_after_retry": graded_after_retry(rows),  # run.report.attempts: said beside the figure
        **_confounds(rows),
        "figure": _figure(rows, kept, scored, rules),
        "pass_rate": pass_rate(scored, rules),
        "pass_at_k": pass_at_k_curve(scored, rules),
        "catastrophic": catastrophic_rate(catastrophic, rows, rules),
        "duration": _duration(scored),
        "review": cell_review(rows),  # the reviewed score beside (run/report/reviewed.py)
    }


def _confounds(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """What the group's runs mix that its figures average over: case versions, variants, engines, tools, grading options."""
    mixed: dict[str, Any] = {part: sorted({str(row.get(part)) for row in rows}) for part in ("version", "variant", "engine")}
    confounded = [part for part, values in mixed.items() if len(values) > 1]
    mixed["tool"] = mixed_tools(rows)  # graded by different versions (Chromium, Node, wasmtime, the plugin)
    confounded += ["tool"] if mixed["tool"] else []
    mixed["option"] = mixed_options(rows)  # graded with different caps, timeouts, viewport, network (`graded_with`)
    confounded += ["option"] if mixed["option"] else []
    return {**mixed, "confounded": confounded}


def _workable(rows: list[dict[str, Any]], rules: Rules) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The rows the figures are over, and the catastrophic ones: kept apart (the default) or, under
    `zero`, kept in too (their score counted as 0)."""
    catastrophic = [row for row in rows if _graded(row) and catastrophe(row) is not None]
    if rules.catastrophic == ZERO:
        return rows, catastrophic
    apart = {id(row) for row in catastrophic}
    return [row for row in rows if id(row) not in apart], catastrophic


def _graded(row: dict[str, Any]) -> bool:
    return row["status"] == GRADED and not row.get("partial")


def _score(row: dict[str, Any], rules: Rules) -> float:
    """A scored run's score; a catastrophic one counts as 0 under `zero` (it is only here under it)."""
    return 0.0 if rules.catastrophic == ZERO and catastrophe(row) is not None else float(row["score"])


def catastrophic_rate(catastrophic: list[dict[str, Any]], rows: list[dict[str, Any]], rules: Rules) -> dict[str, Any]:
    """The share of the group's graded runs that were catastrophic, with its Wilson 95% interval,
    how many of each kind, and the rule the figures followed."""
    graded = sum(_graded(row) for row in rows)
    low, high = wilson_interval(len(catastrophic), graded)
    kinds = [catastrophe(row) for row in catastrophic]
    return {"rule": rules.catastrophic, "statistic": "share", "unit": "share of runs", "better": "lower",
            "interval": "Wilson 95%", "runs": len(catastrophic), "n": graded,
            "value": round(len(catastrophic) / graded, 6) if graded else None, "low": low, "high": high,
            "kinds": {kind: kinds.count(kind) for kind in KINDS if kind in kinds},
            "catastrophic_runs": sorted(row["run"] for row in catastrophic)}


def _duration(scored: list[dict[str, Any]]) -> dict[str, Any]:
    """The group's duration: median, interquartile range and interval, and each run's own."""
    names = [row["run"] for row in scored]
    values = [float(row.get("duration_s") or 0.0) for row in scored]
    return {**skewed_summary(values, names, unit="s", better="lower"),
            "points": [{"run": name, "value": value} for name, value in zip(names, values, strict=True)]}


def measure_of(rows: list[dict[str, Any]]) -> str:
    """What the rows' case is ranked by (the figure their rows name; the score by default)."""
    names = {(row.get("figure") or {}).get("name") for row in rows}
    return FUEL if FUEL in names else STANDINGS if STANDINGS in names else SCORE


def _figure(rows: list[dict[str, Any]], kept: list[dict[str, Any]], scored: list[dict[str, Any]],
            rules: Rules) -> dict[str, Any]:
    """The figure the group's case is ranked by, over its workable (`kept`) runs, and their own points."""
    measure = measure_of(rows)
    if measure == FUEL:
        graded = [row for row in kept if _graded(row)]
        states = {row["run"]: (row.get("figure") or {}).get("state", INCORRECT) for row in graded}
        correct = [row for row in graded if states[row["run"]] == CORRECT and _value(row) is not None]
        summary = skewed_summary([float(_value(row)) for row in correct], [row["run"] for row in correct],
                                 unit="fuel", better="lower")
        points = [{"run": row["run"], "value": _value(row), "state": states[row["run"]]} for row in graded
                  if states[row["run"]] in (CORRECT, OVER_CEILING) and _value(row) is not None]
        return {"name": FUEL, **summary,
                "over_ceiling": sum(state == OVER_CEILING for state in states.values()),
                "incorrect": sum(state == INCORRECT for state in states.values()),
                "points": sorted(points, key=lambda point: point["run"])}
    if measure == STANDINGS:
        found = [(row.get("figure") or {}).get("standings") for row in rows]
        standings: list[dict[str, Any]] = next((table for table in found if table), [])
        return {"name": STANDINGS, "statistic": "place", "unit": "points", "better": "higher",
                "standings": standings, "points": []}
    scores = [_score(row, rules) for row in scored]
    low, high = bootstrap_interval(scores, [row["run"] for row in scored])
    return {"name": SCORE, "statistic": "mean", "unit": "share of points", "better": "higher",
            "interval": "bootstrap 95%", "n": len(scores),
            "value": round(statistics.fmean(scores), 6) if scores else None, "low": low, "high": high,
            "points": [{"run": row["run"], "value": score} for row, score in zip(scored, scores, strict=True)]}


def _value(row: dict[str, Any]) -> Any:
    return (row.get("figure") or {}).get("value")


def _rank_fuel(board: list[dict[str, Any]]) -> None:
    """Each correct run of a performance case: its rank among the case's correct runs (1 spent
    the least fuel; equal fuel, equal rank), its fuel as a percentage of the lowest group
    median (100 is as cheap as that group's typical run), its percentile against that group
    (the share of its runs that spent at least as much) and the page's own percentile (the share
    of every correct run of the case that spent at least as much); and each group's per-model
    best (the public Test Cabinet's: each group ranked once, at its cheapest correct run)."""
    by_case: dict[str, list[dict[str, Any]]] = {}
    for cell in board:
        if cell["figure"]["name"] == FUEL:
            by_case.setdefault(cell["case"], []).append(cell)
    for cells in by_case.values():
        fuels = sorted(point["value"] for cell in cells for point in cell["figure"]["points"]
                       if point["state"] == CORRECT)
        medians = [cell["figure"]["value"] for cell in cells if cell["figure"]["value"] is not None]
        best = min(medians) if medians else None
        lowest = next((cell for cell in cells if best is not None and cell["figure"]["value"] == best), None)
        reference = [point["value"] for point in lowest["figure"]["points"]
                     if point["state"] == CORRECT] if lowest else []
        for cell in cells:
            cell["figure"]["best"] = cell is lowest
            for point in cell["figure"]["points"]:
                if point["state"] != CORRECT:
                    continue
                point["rank"] = 1 + sum(fuel < point["value"] for fuel in fuels)
                point["of"] = len(fuels)
                point["percent_of_best"] = round(100.0 * point["value"] / best, 1) if best else None
                # Where the run falls among the lowest group's runs: the share of them that spent at
                # least as much fuel (100: as cheap as every one of them).
                point["percentile"] = (round(100.0 * sum(fuel >= point["value"] for fuel in reference)
                                             / len(reference), 1) if reference else None)
                point["percentile_of_runs"] = round(100.0 * sum(fuel >= point["value"] for fuel in fuels)
                                                    / len(fuels), 1)
        _per_model_best(cells)


def _per_model_best(cells: list[dict[str, Any]]) -> None:
    """The public Test Cabinet's results tab: each group once, at its cheapest correct run; its
    rank among the groups' cheapest runs and its percentile (the share of the groups whose
    cheapest run spent at least as much fuel: 100 is as cheap as every group's cheapest)."""
    cheapest: dict[int, dict[str, Any]] = {}
    for index, cell in enumerate(cells):
        correct = [point for point in cell["figure"]["points"] if point["state"] == CORRECT]
        if correct:
            cheapest[index] = min(correct, key=lambda point: (point["value"], point["run"]))
    fuels = [point["value"] for point in cheapest.values()]
    for index, cell in enumerate(cells):
        point = cheapest.get(index)
        cell["figure"]["per_model_best"] = None if point is None else {
            "run": point["run"], "value": point["value"], "rank": 1 + sum(fuel < point["value"] for fuel in fuels),
            "of": len(fuels), "percentile": round(100.0 * sum(fuel >= point["value"] for fuel in fuels) / len(fuels), 1)}


def pass_rate(scored: list[dict[str, Any]], rules: Rules | None = None) -> dict[str, Any]:
    """The share of `scored` runs that earned every automated point, with its 95% Wilson interval."""
    passed = sum(_passed(row, rules or Rules()) for row in scored)
    low, high = wilson_interval(passed, len(scored))
    return {"statistic": "share", "unit": "share of runs", "better": "higher", "interval": "Wilson 95%",
            "passed": passed, "n": len(scored), "value": round(passed / len(scored), 6) if scored else None,
            "low": low, "high": high}


def pass_at_k_curve(scored: list[dict[str, Any]], rules: Rules) -> list[dict[str, Any]]:
    """pass@k and pass^k of the group for k = 1..n (a success: a run that earned every automated
    point, as the pass rate counts it); none below two runs, where k = 1 is the pass rate itself."""
    if len(scored) < 2:
        return []
    return pass_curve(len(scored), sum(_passed(row, rules) for row in scored))


def _passed(row: dict[str, Any], rules: Rules) -> bool:
    return _score(row, rules) >= 1.0 - 1e-9


def skewed_summary(values: list[float], names: list[str], *, unit: str, better: str) -> dict[str, Any]:
    """A skewed figure (fuel, duration) over runs `names`: its median, interquartile range and the
    percentile bootstrap interval of the median, seeded like the mean's."""
    empty = {"statistic": "median", "unit": unit, "better": better, "interval": "bootstrap 95% of the median",
             "n": len(values), "value": None, "q1": None, "q3": None, "low": None, "high": None}
    if not values:
        return empty
    ordered = sorted(values)
    q1, q3 = _quartiles(ordered)
    low, high = bootstrap(values, names, "median")
    return {**empty, "value": round(statistics.median(ordered), 6), "q1": q1, "q3": q3, "low": low, "high": high}


def _quartiles(ordered: list[float]) -> tuple[float, float]:
    """The first and third quartiles (linear interpolation between order statistics, numpy's default)."""
    def at(share: float) -> float:
        position = share * (len(ordered) - 1)
        below = math.floor(position)
        above = min(below + 1, len(ordered) - 1)
        return ordered[below] + (ordered[above] - ordered[below]) * (position - below)
    return round(at(0.25), 6), round(at(0.75), 6)


def _scored(row: dict[str, Any]) -> bool:
    """A graded run with a score of its own, every item of it run (a partial run's score is not comparable)."""
    return row["status"] == GRADED and row.get("score") is not None and not row.get("partial")


def who(harness: str | None, model: str | None) -> str:
    """`harness / model`, with `-` for a part run.toml did not give."""
    return f"{harness or '-'} / {model or '-'}"


def table_lines(board: list[dict[str, Any]]) -> list[str]:
    """The leaderboard as the terminal summary ends with it: one compact line per cell."""
    if not board:
        return []
    rows = [(who(cell["harness"], cell["model"]), cell["case"], _mean_text(cell), str(cell["runs"]),
             _aside(cell)) for cell in board]
    widths = [max(len(row[i]) for row in [("harness / model", "case", "mean [95% CI]", "runs", ""), *rows])
              for i in range(4)]
    head = ("harness / model", "case", "mean [95% CI]", "runs")
    lines = ["  ".join(text.ljust(width) for text, width in zip(head, widths, strict=True)).rstrip()]
    lines += ["  ".join(text.ljust(width) for text, width in zip(row[:4], widths, strict=True)).rstrip()
              + (f"  {row[4]}" if row[4] else "") for row in rows]
    return lines


def _mean_text(cell: dict[str, Any]) -> str:
    figure = cell.get("figure") or {}
    if figure.get("name") == FUEL:
        if figure["value"] is None:
            return "-"
        return f"median fuel {figure['value']:,.0f} [{figure['low']:,.0f}, {figure['high']:,.0f}] (lower is better)"
    if cell["mean"] is None:
        return "-"
    return f"{cell['mean']:.3f} [{cell['low']:.3f}, {cell['high']:.3f}]"


def beside_the_figure(cell: dict[str, Any]) -> list[str]:
    """The runs of a group counted beside its figure, never in it (`2 incorrect`, `1 not graded`):
    the terminal table, the page's table and its chart all say them in these words."""
    figure = cell.get("figure") or {}
    counts = [(figure.get("over_ceiling"), "over the ceiling"), (figure.get("incorrect"), "incorrect"),
              (cell["not_graded"], "not graded"), (cell["unscored"], "unscored"),
              (cell.get("graded_after_retry"), "graded after a retry")]
    counts.append((cell.get("review", {}).get("awaiting"), "awaiting review"))  # run/report/reviewed.py
    rate = cell.get("catastrophic") or {}
    catastrophic = ([f"{rate['runs']} catastrophic" + (" (in the score as 0)" if rate["rule"] == ZERO else "")]
                    if rate.get("runs") else [])
    return [f"{count} {what}" for count, what in counts if count] + catastrophic


def catastrophic_words(cell: dict[str, Any]) -> str:
    """`2 of 4 catastrophic (build failed; kept out of the score): rate 0.50, Wilson 95% 0.15-0.85`,
    or under `zero` that they are in the score as 0; empty when the group had none (or the
    document predates the rate)."""
    rate = cell.get("catastrophic") or {}
    if not rate.get("runs"):
        return ""
    kinds = ", ".join(f"{count} {kind}" if count != rate["runs"] else kind for kind, count in rate["kinds"].items())
    where = "in the score as 0" if rate["rule"] == ZERO else "kept out of the score"
    return (f"{rate['runs']} of {rate['n']} catastrophic ({kinds}; {where}): rate {rate['value']:.2f}, "
            f"Wilson 95% {rate['low']:.2f}-{rate['high']:.2f}")


def _aside(cell: dict[str, Any]) -> str:
    notes = [note for note in beside_the_figure(cell) if "catastrophic" not in note]
    notes += [words] if (words := catastrophic_words(cell)) else []
    notes += review_aside(cell)  # the reviewed score and ratings (run/report/reviewed.py)
    if cell["confounded"]:
        notes.append("confounded: mixes " + ", ".join(
            f"{part}s {'/'.join(cell[part])}" for part in cell["confounded"]))
    return "; ".join(notes)
