"""The leaderboard as a chart: per case, one row per (harness, model) group, three panels.

Plain SVG written here (no charting library: the page opens offline and stays one small file,
and every label a run wrote is escaped by the same function as the rest of the page). The
first panel is what the case is ranked by: each run's own point (at small n the points matter
more than any summary) and over them the summary, the mean automated score with its seeded 95%
bootstrap interval, or for a performance case the median fuel total with its interquartile
range and the bootstrap interval of the median, over-ceiling runs drawn apart and marked. The
second is the pass rate with its 95% Wilson interval, the third the duration (median,
interquartile range, interval). Every group says its n; not-graded, unscored and incorrect runs
are written beside it, never drawn into its figures; one colour per harness; no winner.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pytest_tcab.run.report.leaderboard import beside_the_figure
from pytest_tcab.run.report.page.markup import e
from pytest_tcab.run.report.page.markup import group_attributes
from pytest_tcab.run.report.sweep import FUEL
from pytest_tcab.run.report.sweep import OVER_CEILING

PALETTE = ("#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#7a5195", "#8c6d31")
"""One colour per harness (Okabe and Ito's colour-blind safe set, then two more)."""
LABEL_W, PANEL_GAP, ROW_H, TOP, AXIS_H = 230, 26, 30, 26, 30
PANELS = (("main", 330), ("pass", 170), ("duration", 170))


def harness_colours(board: list[dict[str, Any]]) -> dict[str, str]:
    """Each harness of the board (in name order) its colour."""
    names = sorted({cell["harness"] or "" for cell in board})
    return {name: PALETTE[index % len(PALETTE)] for index, name in enumerate(names)}


def case_chart(case: str, cells: list[dict[str, Any]], colours: dict[str, str]) -> str:
    """The chart of one case's groups (an SVG inside a figure, its caption saying what is drawn)."""
    figure = cells[0]["figure"]
    fuel = figure["name"] == FUEL
    main_values = [point["value"] for cell in cells for point in cell["figure"]["points"]]
    main_values += [cell["figure"].get(key) for cell in cells for key in ("high", "q3") if cell["figure"].get(key)]
    main_max = 1.0 if not fuel else (max(main_values) * 1.08 if main_values else 1.0)
    durations = [cell["duration"].get(key) or 0.0 for cell in cells for key in ("high", "q3", "value")]
    duration_max = max(max(durations, default=0.0) * 1.1, 0.1)
    width = LABEL_W + sum(w for _, w in PANELS) + PANEL_GAP * len(PANELS) + 120
    height = TOP + ROW_H * len(cells) + AXIS_H
    x0: dict[str, float] = {}
    left = float(LABEL_W)
    for name, panel_width in PANELS:
        x0[name] = left
        left += panel_width + PANEL_GAP
    first_title = ("median fuel total (lower is better)" if fuel else "mean automated score (higher is better)")
    parts = [
        _panel_frame(x0["main"], PANELS[0][1], len(cells), first_title, main_max, fuel),
        _panel_frame(x0["pass"], PANELS[1][1], len(cells), "pass rate, Wilson 95%", 1.0, False),
        _panel_frame(x0["duration"], PANELS[2][1], len(cells), "duration (s), median", duration_max, False, unit="s"),
    ]
    for index, cell in enumerate(cells):
        y = TOP + ROW_H * index + ROW_H / 2
        colour = colours.get(cell["harness"] or "", PALETTE[0])
        parts.append(_group_row(cell, y, colour, x0, main_max, duration_max, fuel, index))
    aria = f"{case}: {first_title} per harness and model, with pass rate and duration"
    svg = (f'<svg class="chart" viewBox="0 0 {width} {height}" width="{width}" height="{height}" role="img" '
           f'aria-label="{e(aria)}" xmlns="http://www.w3.org/2000/svg">{"".join(parts)}</svg>')
    return svg + ratio_note(cells, fuel)


def ratio_note(cells: list[dict[str, Any]], fuel: bool) -> str:
    """With exactly two groups: the ratio of their medians, written with both medians."""
    if len(cells) != 2:
        return ""
    lines = []
    figures: list[tuple[str, list[dict[str, Any]], Callable[[float], str]]] = []
    if fuel:
        figures.append(("fuel total", [cell["figure"] for cell in cells], _fuel_text))
    figures.append(("duration", [cell["duration"] for cell in cells], _seconds_text))
    for name, (a, b), text in figures:
        if a.get("value") and b.get("value"):
            lines.append(f"median {name}: {_who(cells[0])} {text(a['value'])}, {_who(cells[1])} {text(b['value'])};"
                         f" ratio {a['value'] / b['value']:.2f}")
    return "".join(f'<p class="ratio">{e(line)}</p>' for line in lines)


def _who(cell: dict[str, Any]) -> str:
    return f"{cell['harness'] or '-'} / {cell['model'] or '-'}"


def _fuel_text(value: float) -> str:
    return f"{value:,.0f}"


def _seconds_text(value: float) -> str:
    return f"{value:.1f} s"


def axis_number(value: float, fuel: bool, unit: str = "") -> str:
    """A tick's number, short: fuel in k, M, G; seconds and shares in a few digits."""
    if fuel:
        for size, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
            if value >= size:
                return f"{value / size:.3g}{suffix}"
        return f"{value:.0f}"
    if unit == "s":
        return f"{value:.3g}"
    return f"{value:.2g}" if value not in (0.0, 1.0) else f"{value:.0f}"


def _panel_frame(x: float, width: float, rows: int, title: str, maximum: float, fuel: bool, unit: str = "") -> str:
    """A panel's title, its gridlines and its axis ticks."""
    bottom = TOP + ROW_H * rows
    ticks = []
    for step in range(5):
        value = maximum * step / 4
        tx = x + width * step / 4
        ticks.append(f'<line class="grid" x1="{tx:.1f}" y1="{TOP - 4}" x2="{tx:.1f}" y2="{bottom}"/>'
                     f'<text class="tick" x="{tx:.1f}" y="{bottom + 14}">{e(axis_number(value, fuel, unit))}</text>')
    return (f'<g class="panel"><text class="panel-title" x="{x}" y="{TOP - 10}">{e(title)}</text>'
            f'<line class="axis" x1="{x}" y1="{bottom}" x2="{x + width}" y2="{bottom}"/>{"".join(ticks)}</g>')


def _scale(value: float, x: float, width: float, maximum: float) -> float:
    return x + width * max(0.0, min(value / maximum, 1.0)) if maximum else x


def _group_row(cell: dict[str, Any], y: float, colour: str, x0: dict[str, float], main_max: float,
               duration_max: float, fuel: bool, index: int) -> str:
    figure, passing, duration = cell["figure"], cell["pass_rate"], cell["duration"]
    aside = beside_the_figure(cell)
    label = (f'<text class="group" x="8" y="{y - 2:.1f}" fill="{colour}">{e(_who(cell))}</text>'
             f'<text class="n" x="8" y="{y + 11:.1f}">n={figure.get("n", cell["runs"])}'
             f'{e(" · " + ", ".join(aside)) if aside else ""}'
             f'{" · ⚠ confounded" if cell["confounded"] else ""}</text>')
    main_w, pass_w, duration_w = (width for _, width in PANELS)
    parts = [label, _band(y, x0["main"], main_w, index)]
    if figure.get("q1") is not None and fuel:
        parts.append(_iqr(figure, y, x0["main"], main_w, main_max, colour))
    parts.append(_interval(figure, y, x0["main"], main_w, main_max, colour,
                           _summary_title(cell, figure, fuel)))
    for number, point in enumerate(figure.get("points", [])):
        parts.append(_point(point, y, x0["main"], main_w, main_max, colour, number, fuel))
    parts.append(_interval(passing, y, x0["pass"], pass_w, 1.0, colour,
                           f"{_who(cell)}: pass rate {passing['passed']}/{passing['n']}"
                           + (f" = {passing['value']:.2f}, Wilson 95% [{passing['low']:.2f}, {passing['high']:.2f}]"
                              if passing["value"] is not None else "")))
    if passing["value"] is not None:
        parts.append(f'<text class="value" x="{x0["pass"] + pass_w + 7}" y="{y + 4:.1f}">'
                     f'{passing["passed"]}/{passing["n"]}</text>')
    if duration.get("q1") is not None:
        parts.append(_iqr(duration, y, x0["duration"], duration_w, duration_max, colour))
    parts.append(_interval(duration, y, x0["duration"], duration_w, duration_max, colour,
                           f"{_who(cell)}: median duration "
                           + (f"{duration['value']:.2f} s, IQR {duration['q1']:.2f}–{duration['q3']:.2f},"
                              f" 95% [{duration['low']:.2f}, {duration['high']:.2f}]"
                              if duration["value"] is not None else "-")))
    summary = _summary_text(figure, fuel)
    if summary:
        parts.append(f'<text class="value" x="{x0["duration"] + duration_w + 8}" y="{y + 4:.1f}">{e(summary)}</text>')
    return f'<g class="group-row" {group_attributes(cell)}>{"".join(parts)}</g>'


def _band(y: float, x: float, width: float, index: int) -> str:
    return "" if index % 2 else (f'<rect class="band" x="{x}" y="{y - ROW_H / 2:.1f}" width="{width}" '
                                 f'height="{ROW_H}"/>')


def _summary_title(cell: dict[str, Any], figure: dict[str, Any], fuel: bool) -> str:
    if figure.get("value") is None:
        return f"{_who(cell)}: no figure (n=0)"
    if fuel:
        return (f"{_who(cell)}: median fuel {_fuel_text(figure['value'])}, IQR {_fuel_text(figure['q1'])}"
                f"–{_fuel_text(figure['q3'])}, 95% bootstrap [{_fuel_text(figure['low'])}, {_fuel_text(figure['high'])}],"
                f" n={figure['n']}")
    return (f"{_who(cell)}: mean score {figure['value']:.3f}, 95% bootstrap [{figure['low']:.3f}, "
            f"{figure['high']:.3f}], n={figure['n']}")


def _summary_text(figure: dict[str, Any], fuel: bool) -> str:
    if figure.get("value") is None:
        return ""
    return f"{axis_number(figure['value'], True)} fuel" if fuel else f"{figure['value']:.2f}"


def _iqr(summary: dict[str, Any], y: float, x: float, width: float, maximum: float, colour: str) -> str:
    left, right = _scale(summary["q1"], x, width, maximum), _scale(summary["q3"], x, width, maximum)
    return (f'<rect class="iqr" x="{left:.1f}" y="{y - 6:.1f}" width="{max(right - left, 1.5):.1f}" height="12" '
            f'fill="{colour}"/>')


def _interval(summary: dict[str, Any], y: float, x: float, width: float, maximum: float, colour: str,
              title: str) -> str:
    """The interval as a line, the summary as a diamond; nothing when there is no figure."""
    if summary.get("value") is None:
        return f'<text class="none" x="{x + 4}" y="{y + 4:.1f}">no figure<title>{e(title)}</title></text>'
    low, high = _scale(summary["low"], x, width, maximum), _scale(summary["high"], x, width, maximum)
    centre = _scale(summary["value"], x, width, maximum)
    return (f'<g class="summary"><title>{e(title)}</title>'
            f'<line class="interval" x1="{low:.1f}" y1="{y:.1f}" x2="{high:.1f}" y2="{y:.1f}" stroke="{colour}"/>'
            f'<path class="centre" d="M{centre:.1f} {y - 6:.1f}l5 6l-5 6l-5 -6z" fill="{colour}"/></g>')


def rank_phrases(point: dict[str, Any]) -> list[str]:
    """What a correct performance run's point says of its place in its case (`leaderboard`'s figures):
    the same words on its chart point and in its row of the runs table."""
    phrases = [f"rank {point['rank']} of {point['of']}"]
    if point.get("percent_of_best") is not None:
        phrases.append(f"{point['percent_of_best']:.1f}% of the lowest group median")
    if point.get("percentile") is not None:
        phrases.append(f"percentile {point['percentile']:.0f} against that group's runs")
    if point.get("percentile_of_runs") is not None:
        phrases.append(f"percentile {point['percentile_of_runs']:.0f} among the case's correct runs")
    return phrases


def _point(point: dict[str, Any], y: float, x: float, width: float, maximum: float, colour: str, number: int,
           fuel: bool) -> str:
    """One run's own point, jittered by its place in the group (so equal values stay visible)."""
    px = _scale(float(point["value"]), x, width, maximum)
    py = y + ((number % 5) - 2) * 2.5
    if fuel:
        text = f"{point['run']}: {_fuel_text(point['value'])} fuel"
        if point.get("state") == OVER_CEILING:
            text += " (over the ceiling: not in the median)"
        elif point.get("rank") is not None:
            text += "".join(f", {phrase}" for phrase in rank_phrases(point))
    else:
        text = f"{point['run']}: score {float(point['value']):.3f}"
    href = e("#run=" + _fragment(point["run"]))
    if point.get("state") == OVER_CEILING:
        mark = (f'<path class="over" d="M{px - 4:.1f} {py - 4:.1f}l8 8m0 -8l-8 8" stroke="{colour}"/>')
    else:
        mark = f'<circle class="pt" cx="{px:.1f}" cy="{py:.1f}" r="3.5" fill="{colour}"/>'
    return f'<a href="{href}" data-point="{e(point["run"])}"><title>{e(text)}</title>{mark}</a>'


def _fragment(text: str) -> str:
    from urllib.parse import quote

    return quote(str(text), safe="")
