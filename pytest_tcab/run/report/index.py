"""index.html: a sweep laid out for a person, one file beside sweep.json, read from disk.

The leaderboard first (per harness, model and case: the mean automated score, its 95%
interval, the runs it covers and those beside it), then one row per run with a link to its
report.html, then what changed since the sweep compared with. Every table sorts by any column
(a click on its heading; a few lines of inline script, no server, nothing fetched). The page
shows the figures in the order of harness, model and case; it names no winner.
"""

from __future__ import annotations

from html import escape
from pathlib import Path
from typing import Any
from urllib.parse import quote

from pytest_tcab.bounded import bound

INDEX_FILE = "index.html"

_CSS = """
body { margin: 0; font: 14px/1.45 system-ui, sans-serif; color: #1d2330; background: #f3f5f8; }
header { background: #141a26; color: #e8ecf3; padding: 16px 28px; }
header h1 { margin: 0; font-size: 19px; } header p { margin: 4px 0 0; color: #9aa6ba; font-size: 13px; }
main { padding: 18px 28px 40px; }
section { background: #fff; border: 1px solid #dfe3ea; border-radius: 8px; margin-bottom: 22px; padding: 14px 18px; }
h2 { margin: 0 0 10px; font-size: 13px; text-transform: uppercase; letter-spacing: .06em; color: #647084; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 5px 9px; border-bottom: 1px solid #dfe3ea; vertical-align: top; }
th { font-size: 12px; color: #647084; cursor: pointer; user-select: none; white-space: nowrap; }
th[aria-sort="ascending"]::after { content: " \\25B2"; } th[aria-sort="descending"]::after { content: " \\25BC"; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.status-graded { color: #1f8a4c; } .status-not-graded { color: #8a6d00; font-weight: 600; }
.status-bad-input { color: #c62f3a; font-weight: 600; } .flag { color: #c46a00; font-weight: 600; }
.note { color: #647084; font-size: 13px; } code { font: 12px ui-monospace, monospace; }
"""

_SORT_SCRIPT = """
document.querySelectorAll("table.sortable").forEach(function (table) {
  table.querySelectorAll("th").forEach(function (th, column) {
    th.addEventListener("click", function () {
      var down = th.getAttribute("aria-sort") === "ascending";
      table.querySelectorAll("th").forEach(function (other) { other.removeAttribute("aria-sort"); });
      th.setAttribute("aria-sort", down ? "descending" : "ascending");
      var body = table.tBodies[0];
      var rows = Array.prototype.slice.call(body.rows);
      rows.sort(function (a, b) {
        var x = a.cells[column].getAttribute("data-sort"), y = b.cells[column].getAttribute("data-sort");
        var nx = parseFloat(x), ny = parseFloat(y);
        var order = (!isNaN(nx) && !isNaN(ny)) ? nx - ny : x.localeCompare(y);
        return down ? -order : order;
      });
      rows.forEach(function (row) { body.appendChild(row); });
    });
  });
});
"""


def write_index(sweep: dict[str, Any], out_dir: Path) -> Path:
    """Write `out_dir/index.html` from the sweep.json `sweep` and return its path."""
    path = out_dir / INDEX_FILE
    path.write_text(render_index(sweep), encoding="utf-8")
    return path


def render_index(sweep: dict[str, Any]) -> str:
    statuses = sweep.get("statuses", {})
    counted = ", ".join(f"{count} {status}" for status, count in statuses.items() if count)
    title = f"Test Cabinet sweep: {len(sweep['runs'])} runs"
    sections = [_leaderboard(sweep["leaderboard"]), _runs(sweep["runs"])]
    if sweep.get("compare"):
        sections.append(_compare(sweep["compare"]))
    return (
        '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{_e(title)}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n"
        f"<header><h1>{_e(title)}</h1><p>{_e(counted)} · media mode {_e(sweep.get('media'))}</p></header>\n"
        f"<main>\n{''.join(sections)}</main>\n<script>{_SORT_SCRIPT}</script>\n</body>\n</html>\n"
    )


def _leaderboard(board: list[dict[str, Any]]) -> str:
    rows = []
    for cell in board:
        interval = "" if cell["mean"] is None else f"{cell['low']:.3f} – {cell['high']:.3f}"
        confounded = ("mixes " + "; ".join(f"{part}s {', '.join(cell[part])}" for part in cell["confounded"])
                      if cell["confounded"] else "")
        rows.append([
            _cell(cell["harness"] or "-"), _cell(cell["model"] or "-"), _cell(cell["case"]),
            _number(cell["mean"], 3), _cell(interval, cell["low"]), _number(cell["runs"]),
            _number(cell["not_graded"]), _number(cell["unscored"]),
            f'<td class="flag" data-sort="{_e(confounded)}">{_e(confounded)}</td>',
        ])
    note = ('<p class="note">Per harness, model and case: the mean automated score of the graded runs '
            "(0 to 1), its 95% bootstrap interval and the runs it covers; runs not graded, and graded runs "
            "without a score of their own (tournaments), are counted beside the mean, not in it. A confounded "
            "cell averages runs of different case versions, variants or engines.</p>")
    head = ["harness", "model", "case", "mean score", "95% interval", "runs", "not graded", "unscored", "confounded"]
    return f'<section id="leaderboard"><h2>Leaderboard</h2>{note}{_table(head, rows)}</section>\n'


def _runs(rows: list[dict[str, Any]]) -> str:
    body = []
    for row in rows:
        run = (f'<td data-sort="{_e(row["run"])}"><a href="{_e(quote(row["report"]))}">{_e(row["run"])}</a></td>'
               if row.get("report") else _cell(row["run"]))
        labels = ", ".join(f"{key}={value}" for key, value in sorted(row.get("labels", {}).items()))
        counts = ", ".join(f"{count} {word}" for word, count in sorted(row.get("counts", {}).items()))
        status = row["status"] if not row.get("error") else (
            row["error"] if row["status"] == "not graded" else f"{row['status']}: {row['error']}")
        body.append([
            run, _cell(row.get("case") or "-"), _cell(row.get("version") or "-"), _cell(row.get("variant") or "-"),
            _cell(row.get("engine") or "-"), _cell(row.get("harness") or "-"), _cell(row.get("model") or "-"),
            _cell(labels),
            f'<td class="status-{row["status"].replace(" ", "-")}" data-sort="{_e(row["status"])}">{_e(status)}</td>',
            _cell(counts), _number(row.get("score"), 3), _number(row.get("duration_s"), 1),
            _cell(row.get("media") or "-"),
        ])
    head = ["run", "case", "version", "variant", "engine", "harness", "model", "labels", "status", "outcomes",
            "score", "duration (s)", "media"]
    return f'<section id="runs"><h2>Runs</h2>{_table(head, body)}</section>\n'


def _compare(comparison: dict[str, Any]) -> str:
    from pytest_tcab.run.report.compare import change_lines

    lines = change_lines(comparison)
    items = "".join(f"<li>{_e(line.strip())}</li>" for line in lines[1:])
    return (f'<section id="compare"><h2>Changes</h2><p>{_e(lines[0])}</p>'
            f'{f"<ul>{items}</ul>" if items else ""}</section>\n')


def _table(head: list[str], rows: list[list[str]]) -> str:
    heading = "".join(f"<th>{_e(name)}</th>" for name in head)
    body = "".join(f"<tr>{''.join(cells)}</tr>" for cells in rows)
    return f'<table class="sortable"><thead><tr>{heading}</tr></thead><tbody>{body}</tbody></table>'


def _cell(text: object, sort: object = None) -> str:
    return f'<td data-sort="{_e(text if sort is None else sort)}">{_e(text)}</td>'


def _number(value: float | None, digits: int = 0) -> str:
    if value is None:
        return '<td class="num" data-sort="-1">-</td>'
    shown = f"{value:.{digits}f}" if digits else str(value)
    return f'<td class="num" data-sort="{value}">{shown}</td>'


def _e(value: object) -> str:
    return escape(bound(str(value if value is not None else "")), quote=True)
