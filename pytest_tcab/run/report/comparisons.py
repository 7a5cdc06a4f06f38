"""What an operator decides on, from the leaderboard: per case, the differences between its groups
(every pair, or each group against `--tcab-baseline`) with their intervals and the runs that
would narrow them to `--tcab-target-width`; over the suite, each group's mean of its per-case
figures with an error clustered by case, per kind of figure (scores are never averaged with fuel).

A difference is `a - b` of the figure the case is ranked by (the mean score, or the median fuel
total of the correct runs) and of the median duration, with the seeded unpaired bootstrap
interval of that difference and, in words, whether it excludes 0: the figures are laid side by
side, no winner is named. A median figure also keeps the ratio of the two medians (skewed
figures compare by ratio). Everything here is read from the board's cells (each counts the runs
its figures are over, `points`), so it follows the board's rules: a catastrophic run is out
of these figures by default, and in them as 0 under `--tcab-catastrophic=zero`.
"""

from __future__ import annotations

import statistics
from itertools import combinations
from typing import Any

from pytest_tcab.run.report.leaderboard import Rules
from pytest_tcab.run.report.leaderboard import who
from pytest_tcab.run.report.statistics import bootstrap_difference
from pytest_tcab.run.report.statistics import clustered_mean
from pytest_tcab.run.report.statistics import median_variance
from pytest_tcab.run.report.statistics import runs_needed
from pytest_tcab.run.report.statistics import sample_variance
from pytest_tcab.run.report.sweep import CORRECT
from pytest_tcab.run.report.sweep import FUEL
from pytest_tcab.run.report.sweep import SCORE

COMPARED = (SCORE, FUEL)
"""The figures that compare across groups (a tournament's standings rank its own entrants)."""


class BaselineNotFound(ValueError):
    """`--tcab-baseline` names a (harness, model) group that ran no case of the sweep."""


def decision(board: list[dict[str, Any]], rules: Rules) -> dict[str, Any]:
    """sweep.json's `rules`, `differences` and `suite`, from the leaderboard `board`."""
    return {"rules": {**rules.document(), "baseline_problem": baseline_problem(board, rules)},
            "differences": differences(board, rules), "suite": suite_figures(board)}


def baseline_problem(board: list[dict[str, Any]], rules: Rules) -> str | None:
    """What is wrong with `--tcab-baseline` for this board (it names no group), or None."""
    return missing_baseline({(cell["harness"] or "", cell["model"] or "") for cell in board}, rules)


def missing_baseline(groups: set[tuple[str, str]], rules: Rules) -> str | None:
    """`--tcab-baseline` naming none of the (harness, model) `groups`, in words; None when it names one (or none is given)."""
    if rules.baseline is None or rules.baseline in groups or not groups:
        return None
    named = "/".join(part or "-" for part in rules.baseline)
    known = ", ".join("/".join(part or "-" for part in group) for group in sorted(groups))
    return (f"--tcab-baseline={named} names no (harness, model) group of the sweep; its groups are {known} "
            "(HARNESS/MODEL as run.toml gives them, - for a part it does not give)")


# -- differences per case ----------------------------------------------------------------------


def differences(board: list[dict[str, Any]], rules: Rules) -> list[dict[str, Any]]:
    """Per case, each pair of its groups (or each group against the baseline, when the case has
    it): their difference, in the board's order (a before b; the baseline always b)."""
    found: list[dict[str, Any]] = []
    for case, cells in _by_case(board).items():
        if cells[0]["figure"]["name"] not in COMPARED:
            continue
        baseline = next((cell for cell in cells if _group(cell) == rules.baseline), None)
        pairs = ([(cell, baseline) for cell in cells if cell is not baseline] if baseline is not None
                 else list(combinations(cells, 2)))
        found += [difference(case, a, b, rules) for a, b in pairs]
    return found


def difference(case: str, a: dict[str, Any], b: dict[str, Any], rules: Rules) -> dict[str, Any]:
    """Group `a` against group `b` on `case`: the figure's and the duration's differences."""
    figure = a["figure"]
    statistic = figure["statistic"]
    return {"case": case, "a": _side(a), "b": _side(b), "name": figure["name"], "statistic": statistic,
            "unit": figure["unit"], "better": figure["better"],
            "figure": compared(_points(a), _points(b), statistic, figure["unit"], rules.target_width),
            "duration": compared(a["duration"].get("points", []), b["duration"].get("points", []), "median", "s",
                                 None)}


def compared(a: list[dict[str, Any]], b: list[dict[str, Any]], statistic: str, unit: str,
             target_width: float | None) -> dict[str, Any]:
    """The difference of `statistic` between two groups' points (`run`, `value`): its value, its
    unpaired bootstrap interval, whether that excludes 0 (in words), the ratio for medians, and
    the runs per group that would bring the interval to `target_width` (for medians a share of
    the smaller median)."""
    values = [[float(point["value"]) for point in side] for side in (a, b)]
    names = [[str(point["run"]) for point in side] for side in (a, b)]
    reduce = statistics.fmean if statistic == "mean" else statistics.median
    figures = [reduce(side) if side else None for side in values]
    value = round(figures[0] - figures[1], 6) if figures[0] is not None and figures[1] is not None else None
    low, high = bootstrap_difference(values[0], names[0], values[1], names[1], statistic)
    few = min(len(side) for side in values) < 2
    excludes = (low > 0 or high < 0) if value is not None and not few and low is not None and high is not None else None
    result: dict[str, Any] = {
        "n": [len(side) for side in values], "difference": value, "low": low, "high": high,
        "interval": f"unpaired bootstrap 95% of the difference of the {statistic}s",
        "excludes_zero": excludes, "says": _says(value, low, high, excludes, few, unit),
    }
    if statistic == "median":
        result["ratio"] = round(figures[0] / figures[1], 6) if figures[0] is not None and figures[1] else None
    if target_width is not None:
        result["runs_needed"] = _runs_needed(values, names, figures, statistic, target_width)
    return result


def _runs_needed(values: list[list[float]], names: list[list[str]], figures: list[float | None], statistic: str,
                 target_width: float) -> dict[str, Any]:
    if statistic == "mean":
        variances = [sample_variance(side) for side in values]
        half_width = target_width
    else:
        variances = [median_variance(side, side_names) for side, side_names in zip(values, names, strict=True)]
        known = [figure for figure in figures if figure]
        half_width = target_width * min(known) if known else target_width
    needed = runs_needed(variances[0], variances[1], half_width)
    return {"runs": needed.runs, "half_width": round(needed.half_width, 6), "reason": needed.reason,
            "target_width": target_width}


def _says(value: float | None, low: float | None, high: float | None, excludes: bool | None, few: bool,
          unit: str) -> str:
    """The difference's interval in words, naming no winner."""
    if value is None:
        return "no difference: a group has no run with this figure"
    if few:
        return "a group has a single run: no interval to tell the groups apart by"
    shown = f"[{_num(low, unit)}, {_num(high, unit)}]"
    if excludes:
        return f"the 95% interval {shown} excludes 0: the groups differ on these runs"
    return f"the 95% interval {shown} includes 0: these runs do not tell the groups apart"


def _num(value: float | None, unit: str) -> str:
    if value is None:
        return "-"
    return f"{value:+,.0f}" if unit == "fuel" else f"{value:+.2f}" if unit == "s" else f"{value:+.3f}"


def _points(cell: dict[str, Any]) -> list[dict[str, Any]]:
    """The runs a cell's figure is over, with their values (a median's: its correct runs)."""
    figure = cell["figure"]
    if figure["name"] == FUEL:
        return [point for point in figure["points"] if point.get("state") == CORRECT]
    return list(figure["points"])


def _side(cell: dict[str, Any]) -> dict[str, Any]:
    return {"harness": cell["harness"], "model": cell["model"]}


def _group(cell: dict[str, Any]) -> tuple[str, str]:
    return cell["harness"] or "", cell["model"] or ""


def _by_case(board: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    cases: dict[str, list[dict[str, Any]]] = {}
    for cell in board:
        cases.setdefault(cell["case"], []).append(cell)
    return cases


# -- the suite-wide figure ---------------------------------------------------------------------


def suite_figures(board: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per group and kind of figure (scores, fuel): the mean of its per-case figures, with the
    standard error clustered by case and its 95% interval, the cases and runs it is over, and
    the cases of that kind it ran no figure on (named, never counted as 0)."""
    kinds: dict[str, dict[tuple[str, str], dict[str, dict[str, Any]]]] = {}
    for cell in board:
        if cell["figure"]["name"] in COMPARED:
            kinds.setdefault(cell["figure"]["name"], {}).setdefault(_group(cell), {})[cell["case"]] = cell
    found = []
    for name in COMPARED:
        groups = kinds.get(name, {})
        every_case = sorted({case for cells in groups.values() for case in cells})
        for group, cells in sorted(groups.items()):
            found.append(suite_figure(name, group, cells, every_case))
    return found


def suite_figure(name: str, group: tuple[str, str], cells: dict[str, dict[str, Any]],
                 every_case: list[str]) -> dict[str, Any]:
    """One group's suite-wide figure of kind `name` over the cases in `cells` (a score's interval
    cut to 0..1, the range a score has)."""
    figures = {case: cell["figure"]["value"] for case, cell in sorted(cells.items())
               if cell["figure"]["value"] is not None}
    mean = clustered_mean({case: [value] for case, value in figures.items()})
    first = next(iter(cells.values()))["figure"]
    low, high = mean.low, mean.high
    if name == SCORE and low is not None and high is not None:  # a score is 0..1: its interval is cut to that
        low, high = max(0.0, low), min(1.0, high)
    return {
        "harness": group[0] or None, "model": group[1] or None, "name": name,
        "statistic": f"mean over cases of each case's {first['statistic']}", "unit": first["unit"],
        "better": first["better"], "interval": "normal 95%, standard error clustered by case",
        "value": mean.value, "se": mean.se, "low": low, "high": high, "reason": mean.reason,
        "cases": mean.cases, "runs": sum(int(cells[case]["figure"].get("n") or 0) for case in figures),
        "per_case": figures,
        "cases_not_run": [case for case in every_case if case not in cells],
        "cases_without_figure": sorted(case for case in cells if case not in figures),
    }


# -- the terminal ------------------------------------------------------------------------------


def difference_lines(document: dict[str, Any]) -> list[str]:
    """The differences the terminal ends with: each case with exactly two groups (or, with a
    baseline, every pair against it), one line each; then the baseline's problem, if any."""
    two = {case for case, cells in _by_case(document.get("leaderboard", [])).items() if len(cells) == 2}
    baseline = (document.get("rules") or {}).get("baseline")
    lines = []
    for entry in document.get("differences", []):
        if entry["case"] not in two and not baseline:
            continue
        figure = entry["figure"]
        if figure["difference"] is None:
            continue
        what = f"{entry['statistic']} {entry['name'].replace('automated ', '')}"
        line = (f"{entry['case']}: {who(**entry['a'])} - {who(**entry['b'])}: {what} "
                f"{_num(figure['difference'], entry['unit'])}; {figure['says']}")
        if figure.get("ratio") is not None:
            line += f"; ratio of medians {figure['ratio']:.2f}"
        needed = figure.get("runs_needed") or {}
        if needed.get("runs") is not None:
            line += f"; about {needed['runs']} runs per group for a half-width of {needed['half_width']:g}"
        lines.append(line)
    return lines
