"""The leaderboard of a sweep: per (harness, model) and case, the figure its case is ranked by,
over the group's graded runs, with how many there were and a 95% interval.

Every case type is ranked by what it measures, on the public Test Cabinet's statistical terms:
a checklist or game case by the automated score (the mean, with a seeded bootstrap interval);
a performance case by the fuel total of each correct run (a skewed figure: the median, its
interquartile range and a bootstrap interval on the median; lower is better), each correct
run's rank in the case and its fuel against the best group's median; over-ceiling runs are
points of their own, marked, and incorrect runs are counted beside, never in the median; a
tournament keeps its standings. Beside the figure, every group has its pass rate (the share of
runs that earned every automated point, with a 95% Wilson score interval) and its duration
(median, interquartile range, bootstrap interval on the median). Each figure says its unit and
which way is better (`better`: `higher` or `lower`).

Runs are grouped as the public Test Cabinet groups them: by the (harness, model) pair, never
merging harnesses. A run that was not graded is counted beside the mean, never in it; so is a
graded run without a score of its own (a tournament) or a partial one (`-k`, `-m` left items out). The interval's resampling is seeded
from the sorted names of the runs it covers, so the same runs always give the same interval.
A cell whose runs mix case versions or variants (or engines), or were graded by different
versions of a tool or with different grading options, is flagged as confounded: its mean averages different tests. The board presents the figures; it names no winner.
"""

from __future__ import annotations

import hashlib
import math
import statistics
from collections.abc import Callable
from typing import Any

from pytest_tcab.run.report.attempts import graded_after_retry
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

RESAMPLES = 4000
CONFIDENCE = 0.95
Z_95 = 1.959963984540054
"""The standard normal quantile of a two-sided 95% interval (Wilson's score interval)."""


def leaderboard(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One entry per (harness, model) and case, sorted by harness, model and case."""
    cells: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for row in rows:
        if row.get("case") is None:  # bad input that names no case: a row of the sweep, no cell
            continue
        key = (row.get("harness") or "", row.get("model") or "", row["case"])
        cells.setdefault(key, []).append(row)
    board = [_cell(harness, model, case, members) for (harness, model, case), members in sorted(cells.items())]
    _rank_fuel(board)
    return board


def _cell(harness: str, model: str, case: str, rows: list[dict[str, Any]]) -> dict[str, Any]:
    scored = sorted((row for row in rows if _scored(row)), key=lambda row: row["run"])
    scores = [float(row["score"]) for row in scored]
    mixed = {part: sorted({str(row.get(part)) for row in rows})
             for part in ("version", "variant", "engine")}
    confounded = [part for part, values in mixed.items() if len(values) > 1]
    mixed["tool"] = mixed_tools(rows)  # graded by different versions (Chromium, Node, wasmtime, the plugin)
    confounded += ["tool"] if mixed["tool"] else []
    mixed["option"] = mixed_options(rows)  # graded with different caps, timeouts, viewport, network (`graded_with`)
    confounded += ["option"] if mixed["option"] else []
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
        **mixed,
        "confounded": confounded,
        "figure": _figure(rows, scored),
        "pass_rate": pass_rate(scored),
        "duration": skewed_summary([float(row.get("duration_s") or 0.0) for row in scored],
                                   [row["run"] for row in scored], unit="s", better="lower"),
        "review": cell_review(rows, bootstrap_interval),  # the reviewed score beside (run/report/reviewed.py)
    }


def measure_of(rows: list[dict[str, Any]]) -> str:
    """What the rows' case is ranked by (the figure their rows name; the score by default)."""
    names = {(row.get("figure") or {}).get("name") for row in rows}
    return FUEL if FUEL in names else STANDINGS if STANDINGS in names else SCORE


def _figure(rows: list[dict[str, Any]], scored: list[dict[str, Any]]) -> dict[str, Any]:
    """The figure the group's case is ranked by, over its scored runs, and its runs' own points."""
    measure = measure_of(rows)
    if measure == FUEL:
        graded = [row for row in rows if row["status"] == GRADED and not row.get("partial")]
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
    scores = [float(row["score"]) for row in scored]
    low, high = bootstrap_interval(scores, [row["run"] for row in scored])
    return {"name": SCORE, "statistic": "mean", "unit": "share of points", "better": "higher",
            "interval": "bootstrap 95%", "n": len(scores),
            "value": round(statistics.fmean(scores), 6) if scores else None, "low": low, "high": high,
            "points": [{"run": row["run"], "value": float(row["score"])} for row in scored]}


def _value(row: dict[str, Any]) -> Any:
    return (row.get("figure") or {}).get("value")


def _rank_fuel(board: list[dict[str, Any]]) -> None:
    """Each correct run of a performance case: its rank among the case's correct runs (1 spent
    the least fuel; equal fuel, equal rank), its fuel as a percentage of the lowest group
    median (100 is as cheap as that group's typical run) and its percentile against that group
    (the share of its runs that spent at least as much)."""
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
                # Where the run falls among the lowest group's runs: the share of them that spent
                # at least as much fuel (100: as cheap as every one of them).
                point["percentile"] = (round(100.0 * sum(fuel >= point["value"] for fuel in reference)
                                             / len(reference), 1) if reference else None)


def pass_rate(scored: list[dict[str, Any]]) -> dict[str, Any]:
    """The share of `scored` runs that earned every automated point, with its 95% Wilson interval."""
    passed = sum(float(row["score"]) >= 1.0 - 1e-9 for row in scored)
    low, high = wilson_interval(passed, len(scored))
    return {"statistic": "share", "unit": "share of runs", "better": "higher", "interval": "Wilson 95%",
            "passed": passed, "n": len(scored), "value": round(passed / len(scored), 6) if scored else None,
            "low": low, "high": high}


def wilson_interval(passed: int, n: int) -> tuple[float | None, float | None]:
    """The 95% Wilson score interval of the share `passed / n` (None, None when n is 0)."""
    if n == 0:
        return None, None
    share = passed / n
    denominator = 1 + Z_95**2 / n
    centre = (share + Z_95**2 / (2 * n)) / denominator
    spread = Z_95 * math.sqrt(share * (1 - share) / n + Z_95**2 / (4 * n * n)) / denominator
    return round(max(0.0, centre - spread), 6), round(min(1.0, centre + spread), 6)


def skewed_summary(values: list[float], names: list[str], *, unit: str, better: str) -> dict[str, Any]:
    """A skewed figure (fuel, duration) over runs `names`: its median, interquartile range and the
    percentile bootstrap interval of the median, seeded like the mean's."""
    empty = {"statistic": "median", "unit": unit, "better": better, "interval": "bootstrap 95% of the median",
             "n": len(values), "value": None, "q1": None, "q3": None, "low": None, "high": None}
    if not values:
        return empty
    ordered = sorted(values)
    q1, q3 = _quartiles(ordered)
    low, high = _bootstrap(values, names, _median_rows)
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


def bootstrap_interval(scores: list[float], names: list[str]) -> tuple[float | None, float | None]:
    """The percentile bootstrap interval of the mean of `scores` (of the runs `names`), resampled
    in name order with a seed from the sorted names: the same runs give the same interval."""
    return _bootstrap(scores, names, _mean_rows)


def _mean_rows(samples: Any) -> Any:
    return samples.mean(axis=1)


def _median_rows(samples: Any) -> Any:
    import numpy as np

    return np.median(samples, axis=1)


def _bootstrap(values: list[float], names: list[str], statistic: Callable[[Any], Any]
               ) -> tuple[float | None, float | None]:
    """The percentile bootstrap interval of `statistic` over `values`, seeded by `names`."""
    if not values:
        return None, None
    if len(values) == 1:
        return round(values[0], 6), round(values[0], 6)
    import numpy as np  # only where there is something to resample: a session of single runs never loads it

    ordered = np.asarray([value for _, value in sorted(zip(names, values, strict=True))], dtype=float)
    rng = np.random.default_rng(interval_seed(names))
    resampled = statistic(ordered[rng.integers(0, len(ordered), size=(RESAMPLES, len(ordered)))])
    tail = (1.0 - CONFIDENCE) / 2 * 100
    low, high = np.percentile(resampled, [tail, 100 - tail])
    return round(float(low), 6), round(float(high), 6)


def interval_seed(names: list[str]) -> int:
    """A seed that depends on which runs a cell holds and on nothing else (not their order)."""
    digest = hashlib.sha256("\n".join(sorted(names)).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big")


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
    return [f"{count} {what}" for count, what in counts if count]


def _aside(cell: dict[str, Any]) -> str:
    notes = beside_the_figure(cell) + review_aside(cell)  # the reviewed score and ratings (run/report/reviewed.py)
    if cell["confounded"]:
        notes.append("confounded: mixes " + ", ".join(
            f"{part}s {'/'.join(cell[part])}" for part in cell["confounded"]))
    return "; ".join(notes)
