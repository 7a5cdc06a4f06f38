"""index.html: a sweep laid out for a person, one file beside sweep.json, opened from disk.

Rendered from sweep.json's document alone (and the folder it is written into, for the media's
relative links): the leaderboard as a chart above its table (per case, each (harness, model)
group's runs as points with the figure the case is ranked by, its interval, the pass rate and
the duration), the verdict map, the runs (each opening in place to its items and their media,
made only when opened), what changed since the sweep compared with, and filters kept in the
URL's fragment. Its script and style are inline and nothing is fetched: it opens offline, with
no server. The page presents the figures in harness, model and case order; it names no winner.
"""

from __future__ import annotations

import base64
import hashlib
from importlib.resources import files
from pathlib import Path
from typing import Any
from urllib.parse import quote

from pytest_tcab.run.report.leaderboard import beside_the_figure
from pytest_tcab.run.report.leaderboard import catastrophic_words
from pytest_tcab.run.report.page.chart import case_chart
from pytest_tcab.run.report.page.chart import harness_colours
from pytest_tcab.run.report.page.chart import rank_phrases
from pytest_tcab.run.report.page.decision import case_decision
from pytest_tcab.run.report.page.decision import rule_note
from pytest_tcab.run.report.page.decision import suite_section
from pytest_tcab.run.report.page.markup import e
from pytest_tcab.run.report.page.markup import group_attributes
from pytest_tcab.run.report.page.markup import json_island
from pytest_tcab.run.report.page.markup import media_url
from pytest_tcab.run.report.page.markup import number_cell
from pytest_tcab.run.report.page.markup import sortable_table
from pytest_tcab.run.report.page.markup import text_cell
from pytest_tcab.run.report.page.reviews import reviews_section
from pytest_tcab.run.report.page.verdicts import verdict_map
from pytest_tcab.run.report.stability import stability_section
from pytest_tcab.run.report.sweep import FUEL
from pytest_tcab.run.report.sweep import OVER_CEILING
from pytest_tcab.run.report.sweep import STANDINGS
from pytest_tcab.run.report.sweep import STATUSES
from pytest_tcab.run.report.sweep import shards_line

INDEX_FILE = "index.html"

_CSS = """
body { margin: 0; font: 14px/1.45 system-ui, sans-serif; color: #1d2330; background: #f3f5f8; }
header { background: #141a26; color: #e8ecf3; padding: 16px 28px; }
header h1 { margin: 0; font-size: 19px; } header p { margin: 4px 0 0; color: #9aa6ba; font-size: 13px; }
nav#filters { background: #fff; border-bottom: 1px solid #dfe3ea;
  padding: 8px 28px; display: flex; flex-wrap: wrap; gap: 12px; align-items: center; font-size: 13px; }
nav#filters select { max-width: 220px; } #filter-note { color: #647084; }
main { padding: 18px 28px 40px; }
section { background: #fff; border: 1px solid #dfe3ea; border-radius: 8px; margin-bottom: 22px; padding: 14px 18px; }
h2 { margin: 0 0 10px; font-size: 13px; text-transform: uppercase; letter-spacing: .06em; color: #647084; }
h3 { margin: 16px 0 6px; font-size: 15px; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 5px 9px; border-bottom: 1px solid #dfe3ea; vertical-align: top; }
table.sortable thead th { font-size: 12px; color: #647084; cursor: pointer; user-select: none; white-space: nowrap; }
th[aria-sort="ascending"]::after { content: " \\25B2"; } th[aria-sort="descending"]::after { content: " \\25BC"; }
#leaderboard-table td { white-space: nowrap; font-size: 13px; } #leaderboard-table td, #leaderboard-table th { padding: 4px 6px; } .scroll { overflow-x: auto; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.status-graded { color: #1f8a4c; } .status-not-graded { color: #8a6d00; font-weight: 600; }
.status-bad-input { color: #c62f3a; font-weight: 600; } .flag { color: #c46a00; font-weight: 600; }
.note { color: #647084; font-size: 13px; } code { font: 12px ui-monospace, monospace; }
[hidden] { display: none !important; }
.legend span { display: inline-block; margin-right: 14px; font-size: 13px; }
.legend i { display: inline-block; width: 10px; height: 10px; border-radius: 50%; margin-right: 5px; }
figure.case { margin: 0 0 18px; overflow-x: auto; } figure.case figcaption { font-weight: 600; margin-bottom: 4px; }
svg.chart text { font: 11px system-ui, sans-serif; fill: #1d2330; }
svg.chart text.group { font-weight: 600; } svg.chart text.n, svg.chart text.tick, svg.chart text.none { fill: #647084; }
svg.chart text.tick { text-anchor: middle; font-size: 10px; } svg.chart text.panel-title { fill: #647084; }
svg.chart .grid { stroke: #eef0f4; } svg.chart .axis { stroke: #9aa6ba; } svg.chart .band { fill: #f7f8fa; }
svg.chart .interval { stroke-width: 2.5; } svg.chart .iqr { opacity: .22; }
svg.chart .pt { stroke: #fff; stroke-width: 1; opacity: .85; } svg.chart .over { stroke-width: 2; fill: none; }
svg.chart a.dimmed { opacity: .12; }
p.ratio { margin: 2px 0; font-size: 13px; }
td.catastrophic .words { display: block; font-size: 11px; color: #8a4b00; white-space: normal; max-width: 260px; }
td.catastrophic .words:empty { display: none; }
div.decision { display: flex; flex-wrap: wrap; gap: 18px; align-items: flex-start; margin-top: 6px; }
table.differences { width: auto; font-size: 12px; } table.differences caption { text-align: left; color: #647084; padding-bottom: 4px; max-width: 620px; }
table.differences th { font-size: 12px; white-space: nowrap; } td.diff { min-width: 120px; font-variant-numeric: tabular-nums; }
td.diff .word, td.diff .needed { display: block; font-size: 11px; color: #647084; } td.diff.apart { background: #eef4fb; }
td.diff.self, td.diff.none { color: #9aa6ba; text-align: center; }
figure.pass-at-k { margin: 0; font-size: 12px; } figure.pass-at-k figcaption { color: #647084; max-width: 300px; font-weight: 400; }
ul.curve-legend { list-style: none; padding: 0; margin: 4px 0 0; } ul.curve-legend i { display: inline-block; width: 10px; height: 3px; margin-right: 5px; vertical-align: middle; }
div.tc-percentile { font-size: 12px; max-width: 520px; } div.tc-percentile ul { margin: 2px 0; padding-left: 18px; }
table.suite { margin-bottom: 14px; font-size: 13px; } table.suite td:nth-child(-n+2) { white-space: nowrap; }
svg.suite-chart { display: block; margin: 4px 0 8px; } p.rule { color: #1d2330; }
table.verdict-map { width: auto; margin-bottom: 16px; } table.verdict-map caption { text-align: left; color: #647084; font-size: 13px; padding-bottom: 4px; }
td.vm { text-align: center; min-width: 84px; font-variant-numeric: tabular-nums; }
td.vm a { color: inherit; font-weight: 600; } td.vm .count { display: block; font-size: 11px; opacity: .8; }
td.vm.reviewer { background: repeating-linear-gradient(45deg, #f1f2f5, #f1f2f5 6px, #e6e8ee 6px, #e6e8ee 12px); color: #647084; font-size: 12px; }
td.vm.none { color: #9aa6ba; font-size: 12px; } .model { font-weight: 400; color: #647084; }
button.open { border: 0; background: none; cursor: pointer; font-size: 13px; padding: 0 6px 0 0; }
button.open[aria-expanded="true"] { transform: rotate(90deg); }
tr.details > td { background: #fafbfc; }
.item { padding: 6px 0; border-bottom: 1px dashed #e3e6ec; } .item-head { display: flex; gap: 10px; align-items: baseline; flex-wrap: wrap; }
.badge { font-size: 11px; padding: 1px 7px; border-radius: 9px; background: #e8ecf3; }
.badge.outcome-passed { background: #dcf3e5; color: #1f6f41; } .badge.outcome-failed, .badge.outcome-counted-failed { background: #fbe1e3; color: #9c1f2a; }
.badge.outcome-over-ceiling { background: #fdebd3; color: #8a4b00; } .badge.outcome-skipped { background: #eceef3; color: #5b6475; }
.message { color: #9c1f2a; font-size: 13px; } .item.outcome-skipped .message { color: #647084; }
.thumbs { display: flex; gap: 10px; flex-wrap: wrap; margin-top: 6px; }
figure.thumb { margin: 0; font-size: 11px; color: #647084; } figure.thumb img, figure.thumb video { display: block; max-width: 180px; max-height: 110px; border: 1px solid #dfe3ea; border-radius: 4px; }
button.clip { position: relative; padding: 0; border: 0; background: #141a26; cursor: pointer; min-width: 120px; min-height: 60px; border-radius: 4px; }
button.clip .play { position: absolute; left: 6px; bottom: 6px; color: #fff; background: rgba(0,0,0,.6); padding: 1px 6px; border-radius: 8px; font-size: 12px; }
.flip { margin: 6px 0 12px; } .sides { display: flex; gap: 24px; flex-wrap: wrap; }
"""

_SCRIPT = files("pytest_tcab.run.report.page").joinpath("page.js")


def write_index(sweep: dict[str, Any], out_dir: Path) -> Path:
    """Write `out_dir/index.html` from the sweep.json `sweep` and return its path."""
    path = out_dir / INDEX_FILE
    path.write_text(render_index(sweep, out_dir), encoding="utf-8")
    return path


def render_index(sweep: dict[str, Any], out_dir: Path | None = None) -> str:
    """The page of the sweep document `sweep`; media are linked relative to `out_dir`."""
    rows = sweep.get("runs", [])
    board = sweep.get("leaderboard", [])
    statuses = sweep.get("statuses", {})
    counted = ", ".join(f"{count} {status}" for status, count in statuses.items() if count)
    title = f"Test Cabinet sweep: {len(rows)} runs"
    sections = [_leaderboard(board, rows, sweep), suite_section(sweep.get("suite") or [], harness_colours(board)),
                _verdicts(board, rows), _runs(rows, board)]
    sections.insert(3, reviews_section(board, sweep.get("reviews")))  # what the reviewers decided (page/reviews.py)
    if sweep.get("stability"):  # --tcab-regrade (run.report.stability)
        sections.append(stability_section(sweep["stability"]))
    if sweep.get("compare"):
        sections.append(_compare(sweep["compare"], rows, out_dir))
    data = {"details": {row["run"]: _details(row, out_dir) for row in rows}}
    script = _SCRIPT.read_text(encoding="utf-8")
    # Only the page's own script may run (its hash): were anything a run wrote ever to reach the
    # page as markup, its inline script or event handler would still not run, and nothing may be
    # fetched from the network (images and clips from the disk only).
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    return (
        '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src 'self' file: data:; "
        f"media-src 'self' file: data:; style-src 'unsafe-inline'; script-src 'sha256-{digest}'\">\n"
        f"<title>{e(title)}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n"
        f"<header><h1>{e(title)}</h1><p>{e(counted)} · media mode {e(sweep.get('media'))}</p>"
        f"{_progress(sweep.get('progress'))}{_shards(sweep.get('shards'))}</header>\n"
        f"{_filters(rows)}\n<main>\n{''.join(sections)}</main>\n"
        f'<script type="application/json" id="tcab-data">{json_island(data)}</script>\n'
        f"<script>{script}</script>\n</body>\n</html>\n"
    )


def _shards(held: Any) -> str:
    """A merge of shards: which it holds, and, loudly, which are missing (`--tcab-allow-partial`)."""
    if not isinstance(held, dict) or not isinstance(held.get("missing"), list):
        return ""
    missing = ' class="flag"' if held["missing"] else ""
    return f'<p id="shards" role="status"{missing}>{e(shards_line(held))}</p>'


def _progress(progress: Any) -> str:
    """While the sweep is still being graded, its last progress line (the terminal's): the page
    is rewritten as runs end, so an operator watching it sees how far the sweep came."""
    if not isinstance(progress, dict) or progress.get("done") or not progress.get("line"):
        return ""
    return f'<p id="progress" role="status">in progress: {e(progress["line"])}</p>'


# -- filters -----------------------------------------------------------------------------------


def _filters(rows: list[dict[str, Any]]) -> str:
    choices = {
        "case": sorted({row["case"] for row in rows if row.get("case")}),
        "harness": sorted({row["harness"] for row in rows if row.get("harness")}),
        "model": sorted({row["model"] for row in rows if row.get("model")}),
        "label": sorted({label for row in rows for label in _labels(row)}),
        "status": [status for status in STATUSES if any(row["status"] == status for row in rows)],
    }
    selects = []
    for name, values in choices.items():
        options = "".join(f'<option value="{e(value)}">{e(value)}</option>' for value in values)
        selects.append(f'<label>{name} <select data-filter="{name}"><option value="">all</option>{options}</select></label>')
    return (f'<nav id="filters" aria-label="filters">{"".join(selects)}'
            '<button type="button" id="clear-filters">clear</button><span id="filter-note" aria-live="polite"></span></nav>')


def _labels(row: dict[str, Any]) -> list[str]:
    return [f"{key}={value}" for key, value in sorted((row.get("labels") or {}).items())]


# -- leaderboard -------------------------------------------------------------------------------


def _by_case(board: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    cases: dict[str, list[dict[str, Any]]] = {}
    for cell in board:
        cases.setdefault(cell["case"], []).append(cell)
    return cases


def _leaderboard(board: list[dict[str, Any]], rows: list[dict[str, Any]], sweep: dict[str, Any]) -> str:
    colours = harness_colours(board)
    legend = "".join(f'<span><i style="background:{colour}"></i>{e(name or "-")}</span>'
                     for name, colour in colours.items())
    charts = []
    for case, cells in _by_case(board).items():
        figure = cells[0].get("figure") or {}
        if figure.get("name") == STANDINGS:
            charts.append(_standings(case, cells))
            continue
        if "figure" not in cells[0]:  # a document written before cells carried their figures
            continue
        what = "fuel total of each correct run (lower is better)" if figure["name"] == FUEL else \
            "automated score (higher is better)"
        charts.append(f'<figure class="case" data-group="" data-case="{e(case)}"><figcaption>{e(case)}: {e(what)}'
                      f"</figcaption>{case_chart(case, cells, colours)}{case_decision(case, cells, sweep)}</figure>")
    note = ('<p class="note">Per case, each (harness, model) group: every graded run as its own point, '
            "the mean automated score with its seeded 95% bootstrap interval (a performance case: the median "
            "fuel total of the correct runs, its interquartile range as a box and the bootstrap interval of the "
            "median; over-ceiling runs drawn as crosses, outside the median; incorrect runs counted beside); the "
            "pass rate (runs that earned every automated point) with its 95% Wilson interval; the duration as a "
            "median with its interquartile range. n is written beside each group; runs not graded or unscored "
            "are counted beside it, never in its figures. A confounded group mixes case versions, variants, "
            "engines, tool versions or grading options. The figures are shown side by side; none is ranked above "
            "the others here. Under each chart: "
            "the differences between the groups (row minus column) with their unpaired bootstrap 95% interval, "
            "whether it excludes 0, and the runs per group that would narrow it to the target half-width; the "
            "pass@k curves of the groups with two runs or more.</p>" + rule_note(sweep.get("rules")))
    rows_html = [_board_row(cell) for cell in board]
    head = ["harness", "model", "case", "figure", "value", "95% interval", "IQR", "n", "pass rate", "Wilson 95%",
            "catastrophic, Wilson 95%", "duration (s)", "beside the figure"]
    table = f'<div class="scroll">{sortable_table(head, rows_html, table_id="leaderboard-table")}</div>'
    return (f'<section id="leaderboard"><h2>Leaderboard</h2>{note}<div class="legend">{legend}</div>'
            f'{"".join(charts)}{table}</section>\n')


def _board_row(cell: dict[str, Any]) -> str:
    figure = cell.get("figure") or {"name": "automated score", "statistic": "mean", "better": "higher",
                                     "value": cell.get("mean"), "low": cell.get("low"), "high": cell.get("high"),
                                     "n": cell.get("runs")}
    fuel = figure["name"] == FUEL
    value = figure.get("value")
    what = f"{figure.get('statistic') or ''} {figure['name'].replace('automated ', '')} "
    what = f"{what.strip()} ({figure.get('better') or '?'} is better)"
    shown = "-" if value is None else (f"{value:,.0f}" if fuel else f"{value:.3f}")
    interval = "" if value is None else (
        f"{_fuel(figure['low'])} – {_fuel(figure['high'])}" if fuel else f"{figure['low']:.3f} – {figure['high']:.3f}")
    spread = f"{_fuel(figure['q1'])} – {_fuel(figure['q3'])}" if fuel and value is not None else ""
    passing = cell.get("pass_rate") or {}
    wilson = "" if passing.get("value") is None else f"{passing['low']:.2f} – {passing['high']:.2f}"
    duration = (cell.get("duration") or {}).get("value")
    beside = beside_the_figure(cell)
    confounded = ("confounded: mixes " + "; ".join(f"{part}s {', '.join(cell[part])}" for part in cell["confounded"])
                  if cell["confounded"] else "")
    cells = [
        text_cell(cell["harness"] or "-"), text_cell(cell["model"] or "-"), text_cell(cell["case"]), text_cell(what),
        f'<td class="num" data-sort="{-1 if value is None else value}">{e(shown)}</td>',
        text_cell(interval, figure.get("low")), text_cell(spread, figure.get("q1")), number_cell(figure.get("n", cell["runs"])),
        number_cell(passing.get("value"), 2) if "value" in passing else '<td class="num" data-sort="-1">-</td>',
        text_cell(wilson, passing.get("low")), _catastrophic(cell), number_cell(duration, 1),
        (f'<td data-sort="{e(", ".join(beside) + confounded)}">{e(", ".join(beside))}'
         f'{"; " if beside and confounded else ""}<span class="flag">{e(confounded)}</span></td>'),
    ]
    return f'<tr {group_attributes(cell)}>{"".join(cells)}</tr>'


def _catastrophic(cell: dict[str, Any]) -> str:
    """The group's catastrophic rate with its Wilson interval, the rule and the kinds in words."""
    rate = cell.get("catastrophic") or {}
    if rate.get("value") is None:
        return '<td class="num" data-sort="-1">-</td>'
    shown = f"{rate['value']:.2f} ({rate['runs']}/{rate['n']}) {rate['low']:.2f} – {rate['high']:.2f}"
    return (f'<td class="num catastrophic" data-sort="{rate["value"]}" title="{e(catastrophic_words(cell))}">'
            f'{e(shown)}<span class="words">{e(catastrophic_words(cell))}</span></td>')


def _fuel(value: float) -> str:
    """Fuel in a table's interval: millions with one decimal (the value column has every digit)."""
    return f"{value / 1e6:,.1f}M" if value >= 1e6 else f"{value:,.0f}"


def _standings(case: str, cells: list[dict[str, Any]]) -> str:
    """A tournament keeps its standings: the entrants as the tournament ranked them."""
    parts = []
    for cell in cells:
        lines = cell["figure"].get("standings") or []
        items = "".join(f'<li>{e(line.get("name"))}{" (house)" if line.get("house") else ""}: '
                        f'{e(line.get("points"))} points{_fuel_aside(line.get("fuel"))}</li>' for line in lines)
        parts.append(f'<div {group_attributes(cell)}><b>{e(cell["harness"] or "-")} / {e(cell["model"] or "-")}</b>'
                     f'<ol>{items}</ol></div>')
    return (f'<figure class="case" data-group="" data-case="{e(case)}"><figcaption>{e(case)}: tournament '
            f"standings (entrants ranked by the tournament itself)</figcaption>{''.join(parts)}</figure>")


def _fuel_aside(fuel: object) -> str:
    return f", {fuel:,} fuel" if isinstance(fuel, int) else ""


# -- verdict map -------------------------------------------------------------------------------


def _verdicts(board: list[dict[str, Any]], rows: list[dict[str, Any]]) -> str:
    maps = []
    for case, cells in _by_case(board).items():
        if (cells[0].get("figure") or {}).get("name") == STANDINGS:
            continue
        maps.append(verdict_map(case, [row for row in rows if row.get("case") == case], cells))
    body = "".join(maps) or '<p class="note">No verdicts to map.</p>'
    note = ('<p class="note">Per case: each verdict (row) by (harness, model) group (column), the share of the '
            "group's graded runs that passed it, of those where it was decided; hatched: left for the reviewer. "
            "A cell opens the runs behind it.</p>")
    return f'<section id="verdicts"><h2>Verdict map</h2>{note}{body}</section>\n'


# -- runs --------------------------------------------------------------------------------------


def _runs(rows: list[dict[str, Any]], board: list[dict[str, Any]]) -> str:
    ranked = {point["run"]: point for cell in board for point in (cell.get("figure") or {}).get("points", [])
              if point.get("rank") is not None}
    body = []
    for row in rows:
        name = e(row["run"])
        opener = (f'<button type="button" class="open" aria-expanded="false" '
                  f'aria-label="open the items of {name}">&#9656;</button>')
        run = (f'<td data-sort="{name}">{opener}<a href="{e(quote(row["report"]))}">{name}</a></td>'
               if row.get("report") else f'<td data-sort="{name}">{opener}{name}</td>')
        counts = ", ".join(f"{count} {word}" for word, count in sorted(row.get("counts", {}).items()))
        status = row["status"] if not row.get("error") else (
            row["error"] if row["status"] == "not graded" else f"{row['status']}: {row['error']}")
        figure_text, figure_sort = _figure_text(row)
        if row["run"] in ranked:  # a correct performance run: its rank in the case, its fuel against the lowest median
            figure_text += "".join(f" · {phrase}" for phrase in rank_phrases(ranked[row["run"]]))
        cells = [
            run, text_cell(row.get("case") or "-"), text_cell(row.get("version") or "-"), text_cell(row.get("variant") or "-"),
            text_cell(row.get("engine") or "-"), text_cell(row.get("harness") or "-"), text_cell(row.get("model") or "-"),
            text_cell(", ".join(_labels(row))),
            f'<td class="status-{e(row["status"].replace(" ", "-"))}" data-sort="{e(row["status"])}">{e(status)}</td>',
            text_cell(counts), f'<td class="num" data-sort="{figure_sort}">{e(figure_text)}</td>',
            number_cell(row.get("duration_s"), 1), text_cell(row.get("media") or "-"),
        ]
        attributes = (f'data-run="{name}" data-case="{e(row.get("case") or "")}" '
                      f'data-harness="{e(row.get("harness") or "")}" data-model="{e(row.get("model") or "")}"')
        body.append(f"<tr {attributes}>{''.join(cells)}</tr>")
    head = ["run", "case", "version", "variant", "engine", "harness", "model", "labels", "status", "outcomes",
            "figure", "duration (s)", "media"]
    return (f'<section id="runs"><h2>Runs</h2><p class="note">A run opens (&#9656;) to its items: outcome, the '
            f"failure's line and its media; its name opens its own report.</p>"
            f'{sortable_table(head, body, table_id="runs-table")}</section>\n')


def _figure_text(row: dict[str, Any]) -> tuple[str, object]:
    figure = row.get("figure") or {}
    if figure.get("name") == FUEL:
        state, value = figure.get("state"), figure.get("value")
        if state == OVER_CEILING:
            return f"over ceiling: {value:,} fuel" if isinstance(value, int) else "over ceiling", -1
        if value is None:
            return f"{state or 'no fuel'}", -1
        return f"{value:,} fuel", value
    if figure.get("name") == STANDINGS:
        return "standings", -1
    score = row.get("score")
    return ("-", -1) if score is None else (f"{score:.3f}", score)


def _details(row: dict[str, Any], out_dir: Path | None) -> dict[str, Any]:
    """What the page's script needs of a run: its status and labels (filters) and its items."""
    items = {}
    for key, outcome in (row.get("items") or {}).items():
        detail = dict((row.get("details") or {}).get(key) or {"outcome": outcome})
        detail["outcome"] = str(detail.get("outcome") or outcome)
        detail["media"] = _media(detail.get("media"), out_dir)
        if not detail["media"]:
            del detail["media"]
        items[str(key)] = detail
    return {"status": row["status"], "labels": _labels(row), "items": items}


def _media(media: Any, out_dir: Path | None) -> list[dict[str, Any]]:
    shown = []
    for medium in media or []:
        if not isinstance(medium, dict):
            continue
        url = media_url(medium.get("path"), out_dir)
        if url is None:
            continue
        kind = "video" if medium.get("kind") == "video" else "image"
        entry = {"label": str(medium.get("label") or ""), "url": url, "kind": kind}
        poster = media_url(medium.get("poster"), out_dir)
        if poster:
            entry["poster"] = poster
        shown.append(entry)
    return shown


# -- what changed ------------------------------------------------------------------------------


def _compare(comparison: dict[str, Any], rows: list[dict[str, Any]], out_dir: Path | None) -> str:
    from pytest_tcab.run.report.compare import change_lines

    lines = change_lines(comparison)
    group_rows = []
    for group in comparison.get("groups", []):
        now, was = group.get("now") or {}, group.get("was") or {}
        fuel = group.get("name") == FUEL
        change = (now["value"] - was["value"]
                  if now.get("value") is not None and was.get("value") is not None else None)
        group_rows.append(f'<tr {group_attributes(group)}>' + "".join([
            text_cell(group.get("harness") or "-"), text_cell(group.get("model") or "-"), text_cell(group.get("case")),
            text_cell(f"{group.get('statistic') or ''} {group.get('name')} ({group.get('better')} is better)"),
            text_cell(_side_text(was, fuel)), text_cell(_side_text(now, fuel)),
            number_cell(change, 0 if fuel else 3) if change is not None else '<td class="num" data-sort="0">-</td>',
        ]) + "</tr>")
    table = sortable_table(["harness", "model", "case", "figure", "then", "now", "change"], group_rows,
                   table_id="compare-table") if group_rows else ""
    flips = []
    for change in comparison.get("runs", []):
        media = change.get("media") or {}
        items = []
        for word, keys in (("newly failing", change.get("newly_failing", [])),
                           ("newly passing", change.get("newly_passing", []))):
            for key in keys:
                sides = media.get(key) or {}
                shown = "".join(
                    f'<div><b>{side_name}</b><div class="thumbs">{_thumbs(sides.get(side) or [], out_dir)}</div></div>'
                    for side, side_name in (("was", "then"), ("now", "now")) if sides.get(side))
                items.append(f'<li><code>{e(key)}</code> {word}{f"<div class=sides>{shown}</div>" if shown else ""}</li>')
        if items:
            name = change["run"] if change["run"] == change["previous"] else f"{change['run']} (was {change['previous']})"
            flips.append(f'<div class="flip"><b>{e(name)}</b><ul>{"".join(items)}</ul></div>')
    summary = "".join(f"<li>{e(line.strip())}</li>" for line in lines[1:])
    return (f'<section id="compare"><h2>What changed</h2><p>{e(lines[0])}</p>{table}'
            f'{"<h3>Flipped verdicts</h3>" + "".join(flips) if flips else ""}'
            f'{f"<ul>{summary}</ul>" if summary else ""}</section>\n')


def _side_text(side: dict[str, Any], fuel: bool) -> str:
    """One side of a group's comparison: its figure, interval and n."""
    if side.get("value") is None:
        return "-"
    if fuel:
        return f"{side['value']:,.0f} [{side['low']:,.0f}, {side['high']:,.0f}] n={side.get('n')}"
    return f"{side['value']:.3f} [{side['low']:.3f}, {side['high']:.3f}] n={side.get('n')}"


def _thumbs(media: list[dict[str, Any]], out_dir: Path | None) -> str:
    parts = []
    for entry in _media(media, out_dir):
        if entry["kind"] == "video":
            parts.append(f'<span data-clip="{e(json_island(entry))}"></span>')
        else:
            parts.append(f'<figure class="thumb"><figcaption>{e(entry["label"])}</figcaption>'
                         f'<a href="{e(entry["url"])}"><img loading="lazy" alt="" src="{e(entry["url"])}"></a></figure>')
    return "".join(parts)
