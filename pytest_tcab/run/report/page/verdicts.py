"""The verdict map: per case, its verdicts (rows) × its (harness, model) groups (columns).

A cell is the share of the group's graded runs that passed the verdict, among those where it
was decided (colour and number); a verdict no run of the group decided says why (left for the
reviewer, skipped, not run). Rows are sorted so the verdicts that separate the groups most (the
widest spread of shares) come first. A cell links to the runs behind it (the filters in the
URL's fragment: case, harness, model and the item).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from pytest_tcab.run.report.page.markup import e
from pytest_tcab.run.report.page.markup import group_attributes
from pytest_tcab.run.report.sweep import DECIDED
from pytest_tcab.run.report.sweep import GRADED

UNMAPPED = frozenset({"standings", "match", "replay"})
"""A tournament's items: the standings say what they decided; they are no verdict of one run."""


def verdict_rows(rows: list[dict[str, Any]], cells: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each verdict of the case: per group, how many runs passed, were decided, skipped; with the
    spread of the shares (what the sort is by)."""
    by_group: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for row in rows:
        if row["status"] == GRADED and not row.get("partial"):
            by_group.setdefault((row.get("harness") or "", row.get("model") or ""), []).append(row)
    keys = sorted({key for row in rows for key in row.get("items", {}) if key.partition("[")[0] not in UNMAPPED})
    verdicts = []
    for key in keys:
        groups = []
        for cell in cells:
            members = by_group.get((cell["harness"] or "", cell["model"] or ""), [])
            outcomes = [row["items"][key] for row in members if key in row.get("items", {})]
            decided = [outcome for outcome in outcomes if outcome in DECIDED]
            passed = sum(outcome == "passed" for outcome in decided)
            groups.append({"runs": len(members), "with": len(outcomes), "decided": len(decided), "passed": passed,
                           "skipped": sum(outcome == "skipped" for outcome in outcomes),
                           "share": passed / len(decided) if decided else None})
        shares = [group["share"] for group in groups if group["share"] is not None]
        spread = max(shares) - min(shares) if len(shares) > 1 else 0.0
        verdicts.append({"key": key, "groups": groups, "spread": spread,
                         "reviewer": not shares})
    verdicts.sort(key=lambda verdict: (verdict["reviewer"], -verdict["spread"], verdict["key"]))
    return verdicts


def verdict_map(case: str, rows: list[dict[str, Any]], cells: list[dict[str, Any]]) -> str:
    """The map of one case as a table (a screen reader reads it as one)."""
    verdicts = verdict_rows(rows, cells)
    if not verdicts:
        return ""
    head = "".join(f'<th scope="col" {group_attributes(cell)}>{e(cell["harness"] or "-")}<br>'
                   f'<span class="model">{e(cell["model"] or "-")}</span></th>' for cell in cells)
    body = []
    for verdict in verdicts:
        tds = []
        for cell, group in zip(cells, verdict["groups"], strict=True):
            link = "#" + urlencode({"case": case, **({"harness": cell["harness"]} if cell["harness"] else {}),
                                    **({"model": cell["model"]} if cell["model"] else {}), "item": verdict["key"]})
            tds.append(_cell(group, link, cell))
        spread = f"{verdict['spread']:.2f}" if not verdict["reviewer"] else "-"
        body.append(f'<tr><th scope="row"><code>{e(verdict["key"])}</code></th>{"".join(tds)}'
                    f'<td class="num spread">{spread}</td></tr>')
    return (f'<table class="verdict-map" data-case="{e(case)}" data-group="">'
            f'<caption>{e(case)}: share of runs that passed each verdict (of those where it was decided);'
            f" the verdicts that separate the groups most first</caption>"
            f'<thead><tr><th scope="col">verdict</th>{head}<th scope="col">spread</th></tr></thead>'
            f'<tbody>{"".join(body)}</tbody></table>')


def _cell(group: dict[str, Any], link: str, cell: dict[str, Any]) -> str:
    attributes = group_attributes(cell)
    if group["with"] == 0:
        return f'<td class="vm none" {attributes}>not run</td>'
    if group["share"] is None:
        word = "left for the reviewer" if group["skipped"] == group["with"] else "not decided"
        return f'<td class="vm reviewer" {attributes}><a href="{e(link)}">{word}</a></td>'
    share = group["share"]
    light = 96 - 58 * share
    ink = "#fff" if share > 0.55 else "#1d2330"
    extra = f" · {group['skipped']} skipped" if group["skipped"] else ""
    title = f"{group['passed']} of {group['decided']} decided runs passed{extra}"
    return (f'<td class="vm" style="background:hsl(212,62%,{light:.0f}%);color:{ink}" {attributes} '
            f'title="{e(title)}"><a href="{e(link)}">{share:.0%}</a>'
            f'<span class="count">{group["passed"]}/{group["decided"]}{e(extra)}</span></td>')
