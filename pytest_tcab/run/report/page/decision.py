"""The sweep page's comparisons: what an operator decides on, drawn from sweep.json's `differences`,
`suite`, `rules` and each cell's `pass_at_k` and catastrophic rate.

Per case, under its chart: the differences between its groups as a small matrix (row minus
column, each with its unpaired bootstrap interval, whether it excludes 0 and the runs per group
that would narrow it to the target half-width), or one row against `--tcab-baseline`; the
pass@k and pass^k curves of its groups with two runs or more (a small SVG); for a performance
case, each group's per-model best (the public Test Cabinet's percentile). Then the suite-wide
figure per group and kind, with its clustered interval (a table and a small SVG). Plain SVG and
tables, every text escaped, nothing fetched; no winner is named.
"""

from __future__ import annotations

from typing import Any

from pytest_tcab.run.report.leaderboard import who
from pytest_tcab.run.report.page.chart import PALETTE
from pytest_tcab.run.report.page.chart import axis_number
from pytest_tcab.run.report.page.markup import e
from pytest_tcab.run.report.page.markup import group_attributes
from pytest_tcab.run.report.sweep import FUEL

CURVE_W, CURVE_H, CURVE_PAD = 240, 120, 28
SUITE_W, SUITE_ROW = 420, 22


def rule_note(rules: dict[str, Any] | None) -> str:
    """Which rule the figures followed for catastrophic runs, and the baseline's problem if any."""
    if not rules:
        return ""
    problem = rules.get("baseline_problem")
    return (f'<p class="note rule" id="catastrophic-rule">Rule applied: {e(rules.get("catastrophic_rule"))}.</p>'
            + (f'<p class="flag" role="alert">{e(problem)}</p>' if problem else ""))


def case_decision(case: str, cells: list[dict[str, Any]], sweep: dict[str, Any]) -> str:
    """Under one case's chart: its differences, its pass@k curves and (fuel) its per-model best."""
    mine = [entry for entry in sweep.get("differences") or [] if entry["case"] == case]
    baseline = bool((sweep.get("rules") or {}).get("baseline")) and not (sweep.get("rules") or {}).get("baseline_problem")
    parts = [differences_table(case, cells, mine, baseline), pass_at_k_chart(case, cells)]
    if cells and cells[0]["figure"]["name"] == FUEL:
        parts.append(per_model_best(cells))
    inner = "".join(parts)
    return f'<div class="decision" data-case="{e(case)}">{inner}</div>' if inner else ""


# -- differences -------------------------------------------------------------------------------


def differences_table(case: str, cells: list[dict[str, Any]], entries: list[dict[str, Any]], baseline: bool) -> str:
    """Row minus column for every pair; with a baseline, one row per group against it."""
    if not entries:
        return ""
    first = entries[0]
    what = f"{first['statistic']} {first['name'].replace('automated ', '')}"
    width = (first["figure"].get("runs_needed") or {}).get("target_width")
    by_pair = {(_key(entry["a"]), _key(entry["b"])): entry for entry in entries}
    against = {_key(entry["b"]) for entry in entries}
    if baseline and len(against) == 1:  # each group against the baseline: one column
        heads = list(against)
        rows = [_key(cell) for cell in cells if _key(cell) not in against]
    else:
        heads = rows = [_key(cell) for cell in cells]
    head = "".join(f'<th scope="col">{e(who(*column))}</th>' for column in heads)
    body = []
    for row in rows:
        tds = []
        for column in heads:
            if row == column:
                tds.append('<td class="diff self">·</td>')
                continue
            entry, sign = (by_pair.get((row, column)), 1) if (row, column) in by_pair else (by_pair.get((column, row)), -1)
            tds.append(_difference_cell(entry, sign, first["unit"]))
        body.append(f'<tr><th scope="row">{e(who(*row))}</th>{"".join(tds)}</tr>')
    relative = " of the smaller median" if first["statistic"] == "median" else ""
    caption = (f"{case}: difference of the {what} (row − column; {first['better']} is better), unpaired bootstrap "
               f"95% interval, and the runs per group that would bring it to a half-width of {width:g}{relative}"
               if width is not None else f"{case}: difference of the {what} (row − column)")
    return (f'<table class="differences" data-case="{e(case)}"><caption>{e(caption)}</caption>'
            f'<thead><tr><th scope="col">row − column</th>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>')


def _difference_cell(entry: dict[str, Any] | None, sign: int, unit: str) -> str:
    if entry is None:
        return '<td class="diff none">-</td>'
    figure = entry["figure"]
    if figure["difference"] is None:
        return f'<td class="diff none" title="{e(figure["says"])}">no figure</td>'
    value = sign * figure["difference"]
    low, high = (figure["low"], figure["high"]) if sign == 1 else (-figure["high"], -figure["low"])
    word = ("excludes 0" if figure["excludes_zero"] else "includes 0" if figure["excludes_zero"] is False
            else "one run")
    kind = "apart" if figure["excludes_zero"] else "same"
    needed = figure.get("runs_needed") or {}
    runs = (f'<span class="needed">{needed["runs"]} runs/group for ±{needed["half_width"]:g}</span>'
            if needed.get("runs") is not None else
            f'<span class="needed">{e(needed["reason"])}</span>' if needed.get("reason") else "")
    ratio = f" · ratio {figure['ratio'] ** sign:.2f}" if figure.get("ratio") else ""
    return (f'<td class="diff {kind}" title="{e(figure["says"])}"><b>{e(_signed(value, unit))}</b> '
            f'[{e(_signed(low, unit))}, {e(_signed(high, unit))}]<span class="word">{word}{e(ratio)}</span>{runs}</td>')


def _signed(value: float, unit: str) -> str:
    value += 0.0  # no "-0.000"
    return f"{value:+,.0f}" if unit == "fuel" else f"{value:+.3f}"


def _key(side: dict[str, Any]) -> tuple[str | None, str | None]:
    return side.get("harness"), side.get("model")


# -- pass@k ------------------------------------------------------------------------------------


def pass_at_k_chart(case: str, cells: list[dict[str, Any]]) -> str:
    """pass@k (solid) and pass^k (dashed) against k for each group with two runs or more."""
    curves = [(index, cell) for index, cell in enumerate(cells) if cell.get("pass_at_k")]
    if not curves:
        return ""
    top_k = max(len(cell["pass_at_k"]) for _, cell in curves)
    plot_w, plot_h = CURVE_W - CURVE_PAD - 8, CURVE_H - CURVE_PAD - 8

    def x(k: int) -> float:
        return CURVE_PAD + (plot_w * (k - 1) / (top_k - 1) if top_k > 1 else plot_w / 2)

    def y(share: float) -> float:
        return 8 + plot_h * (1 - share)

    parts = [f'<line class="axis" x1="{CURVE_PAD}" y1="{y(0):.1f}" x2="{CURVE_PAD + plot_w}" y2="{y(0):.1f}"/>',
             f'<line class="axis" x1="{CURVE_PAD}" y1="8" x2="{CURVE_PAD}" y2="{y(0):.1f}"/>',
             f'<text class="tick" x="{CURVE_PAD - 12}" y="{y(1) + 4:.1f}">1</text>',
             f'<text class="tick" x="{CURVE_PAD - 12}" y="{y(0) + 4:.1f}">0</text>']
    parts += [f'<text class="tick" x="{x(k):.1f}" y="{y(0) + 14:.1f}">{k}</text>' for k in range(1, top_k + 1)]
    parts.append(f'<text class="tick" x="{CURVE_PAD + plot_w / 2:.1f}" y="{CURVE_H - 2}">k</text>')
    legend = []
    for index, cell in curves:
        colour = PALETTE[index % len(PALETTE)]
        for key, dash in (("pass_at_k", ""), ("pass_hat_k", ' stroke-dasharray="4 3"')):
            points = " ".join(f"{x(point['k']):.1f},{y(point[key]):.1f}" for point in cell["pass_at_k"])
            values = ", ".join(f"k={point['k']}: {point[key]:.2f}" for point in cell["pass_at_k"])
            name = "pass@k" if key == "pass_at_k" else "pass^k"
            parts.append(f'<g class="curve" {group_attributes(cell)}><title>{e(who(cell["harness"], cell["model"]))} '
                         f'{name}: {e(values)}</title><polyline points="{points}" fill="none" stroke="{colour}" '
                         f'stroke-width="2"{dash}/></g>')
        legend.append(f'<li {group_attributes(cell)}><i style="background:{colour}"></i>'
                      f'{e(who(cell["harness"], cell["model"]))} (n={len(cell["pass_at_k"])})</li>')
    svg = (f'<svg class="chart pass-at-k" viewBox="0 0 {CURVE_W} {CURVE_H}" width="{CURVE_W}" height="{CURVE_H}" '
           f'role="img" aria-label="{e(case)}: pass@k and pass^k per group" xmlns="http://www.w3.org/2000/svg">'
           f'{"".join(parts)}</svg>')
    return (f'<figure class="pass-at-k" data-case="{e(case)}"><figcaption>{e(case)}: pass@k (solid: at least one '
            "of k runs passes) and pass^k (dashed: all k pass), unbiased estimates from each group's n runs"
            f'</figcaption>{svg}<ul class="curve-legend">{"".join(legend)}</ul></figure>')


# -- performance -------------------------------------------------------------------------------


def per_model_best(cells: list[dict[str, Any]]) -> str:
    """Each group once, at its cheapest correct run: the public Test Cabinet's percentile."""
    lines = []
    for cell in cells:
        best = cell["figure"].get("per_model_best")
        text = ("no correct run: not ranked" if best is None else
                f"rank {best['rank']} of {best['of']}, percentile {best['percentile']:.0f} "
                f"(its cheapest correct run {best['run']}: {best['value']:,} fuel)")
        lines.append(f'<li {group_attributes(cell)}>{e(who(cell["harness"], cell["model"]))}: {e(text)}</li>')
    return ('<div class="tc-percentile"><p class="note">Per-model best (the public Test Cabinet\'s percentile: '
            "each group ranked once, at its cheapest correct run; the share of the groups whose cheapest run spent "
            "at least as much fuel). The runs table's percentiles rank every correct run instead.</p>"
            f'<ul>{"".join(lines)}</ul></div>')


# -- the suite-wide figure ---------------------------------------------------------------------


def suite_section(suite: list[dict[str, Any]], colours: dict[str, str]) -> str:
    """The suite-wide figure per group and kind of figure: a table and its intervals drawn."""
    if not suite:
        return ""
    parts = []
    for name in dict.fromkeys(entry["name"] for entry in suite):
        entries = [entry for entry in suite if entry["name"] == name]
        parts.append(f"<h3>{e(name)}</h3>" + _suite_chart(name, entries, colours) + _suite_table(name, entries))
    note = ('<p class="note">Per (harness, model) group and kind of figure (scores are never averaged with fuel): '
            "the mean of its per-case figures, each case weighted equally, with a standard error clustered by case "
            "(Miller 2024, &#8220;Adding Error Bars to Evals&#8221;: runs of one case are not independent draws) and "
            "its normal 95% interval. Cases a group ran no figure on are named beside it, never counted as 0; with "
            "one case there is no spread across cases to measure.</p>")
    return f'<section id="suite"><h2>Across the suite</h2>{note}{"".join(parts)}</section>\n'


def _suite_table(name: str, entries: list[dict[str, Any]]) -> str:
    fuel = name == FUEL
    head = "".join(f'<th scope="col">{text}</th>' for text in (
        "harness", "model", "figure", "mean of cases", "clustered SE", "95% interval", "cases", "runs",
        "cases not run", "cases without a figure"))
    body = []
    for entry in entries:
        value = "-" if entry["value"] is None else _plain(entry["value"], fuel)
        se = entry["reason"] if entry["se"] is None else _plain(entry["se"], fuel)
        interval = "" if entry["low"] is None else f"{_plain(entry['low'], fuel)} – {_plain(entry['high'], fuel)}"
        cells = [entry["harness"] or "-", entry["model"] or "-",
                 f"{entry['statistic']} ({entry['better']} is better)", value, se, interval, entry["cases"],
                 entry["runs"], ", ".join(entry["cases_not_run"]) or "-", ", ".join(entry["cases_without_figure"]) or "-"]
        body.append(f'<tr {_suite_attributes(entry)}>{"".join(f"<td>{e(text)}</td>" for text in cells)}</tr>')
    return (f'<table class="suite" data-figure="{e(name)}" aria-label="{e(name)} across the suite"><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(body)}</tbody></table>')


def _suite_chart(name: str, entries: list[dict[str, Any]], colours: dict[str, str]) -> str:
    fuel = name == FUEL
    values = [value for entry in entries for value in (entry["high"], entry["value"]) if value is not None]
    top = 1.0 if not fuel else max(values, default=1.0) * 1.1 or 1.0
    left, width = 200, SUITE_W - 230
    height = SUITE_ROW * len(entries) + 24

    def x(value: float) -> float:
        return left + width * max(0.0, min(value / top, 1.0))

    parts = [f'<line class="axis" x1="{left}" y1="{height - 18}" x2="{left + width}" y2="{height - 18}"/>',
             f'<text class="tick" x="{left}" y="{height - 4}">0</text>',
             f'<text class="tick" x="{left + width}" y="{height - 4}">{e(axis_number(top, fuel) if fuel else _plain(top, fuel))}</text>']
    for index, entry in enumerate(entries):
        y = 12 + SUITE_ROW * index
        colour = colours.get(entry["harness"] or "", PALETTE[0])
        label = f"{who(entry['harness'], entry['model'])} ({entry['cases']} case{'' if entry['cases'] == 1 else 's'})"
        parts.append(f'<g {_suite_attributes(entry)}><text class="group" x="4" y="{y + 4}" fill="{colour}">{e(label)}</text>')
        if entry["value"] is not None:
            title = (f"{label}: {_plain(entry['value'], fuel)}" + (
                f", 95% [{_plain(entry['low'], fuel)}, {_plain(entry['high'], fuel)}]" if entry["low"] is not None
                else f" ({entry['reason']})"))
            if entry["low"] is not None:
                parts.append(f'<line class="interval" x1="{x(entry["low"]):.1f}" y1="{y}" x2="{x(entry["high"]):.1f}" '
                             f'y2="{y}" stroke="{colour}"/>')
            parts.append(f'<circle cx="{x(entry["value"]):.1f}" cy="{y}" r="4" fill="{colour}"><title>{e(title)}</title>'
                         "</circle>")
        parts.append("</g>")
    return (f'<svg class="chart suite-chart" viewBox="0 0 {SUITE_W} {height}" width="{SUITE_W}" height="{height}" '
            f'role="img" aria-label="{e(name)}: mean over cases per group with its clustered 95% interval" '
            f'xmlns="http://www.w3.org/2000/svg">{"".join(parts)}</svg>')


def _suite_attributes(entry: dict[str, Any]) -> str:
    return (f'data-group="" data-harness="{e(entry.get("harness") or "")}" '
            f'data-model="{e(entry.get("model") or "")}"')


def _plain(value: float, fuel: bool) -> str:
    return f"{value:,.0f}" if fuel else f"{value:.3f}"
