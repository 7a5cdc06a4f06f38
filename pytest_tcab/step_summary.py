"""The Markdown a session appends to GitHub's `$GITHUB_STEP_SUMMARY` (see `github.py`).

A run's section is read from its results.json entry, so it says what results.json says: the
counts, the score (or the requirements, the fuel), each failure with its message (bounded: the
page is shared by every step of the job), and each performance case's fuel against its ceiling.
Author mode gets the counts of its items and the failing ones, each with its first problem.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from pytest_tcab.run.report.html import OUTCOME_ORDER
from pytest_tcab.run.report.results import run_heading
from pytest_tcab.run.report.results import summary_lines

MAX_FAILURES = 30
"""Failures listed per section; the rest are counted."""
MESSAGE_LINES = 12
"""Lines of each failure message shown (the rest are in results.json and report.html)."""
_FAILED = ("failed", "over-ceiling")


def run_markdown(run: dict[str, Any]) -> str:
    """One run's section."""
    out = [f"### tcab: {_inline(run_heading(run))}", "", _counts_table(run["counts"]), ""]
    if run.get("partial"):
        out += [f"Partial run: {len(run.get('deselected', []))} items deselected (not run, not scored).", ""]
    facts = summary_lines(run)
    performance = run.get("performance")
    if performance is not None and performance.get("total_fuel") is None:
        why = "an answer was wrong" if not performance.get("correct") else "a case went over its fuel ceiling"
        facts.append(f"performance: no comparable fuel figure ({why})")
    out += [f"- {_inline(fact)}" for fact in facts] + ([""] if facts else [])
    failures = [item for item in run["items"] if item["outcome"] in _FAILED]
    if failures:
        out += [f"**Failures** ({len(failures)})", ""]
        for item in failures[:MAX_FAILURES]:
            out += _failure(item)
        if len(failures) > MAX_FAILURES:
            out += [f"... and {len(failures) - MAX_FAILURES} more (see results.json)", ""]
    if performance is not None and performance.get("cases"):
        out += ["| case | fuel | ceiling | outcome |", "|---|---:|---:|---|"]
        for case, figures in performance["cases"].items():
            fuel, limit = figures.get("fuel"), figures.get("fuel_limit")
            out.append(f"| {_cell(case)} | {_number(fuel)} | {_number(limit)} | {_cell(figures['outcome'])} |")
        out.append("")
    return "\n".join(out) + "\n"


def author_markdown(counts: Counter[str], failures: dict[str, str]) -> str:
    """Author mode's section: counts of its items, then each failing item with its first problem."""
    out = ["### tcab: author mode", "", _counts_table(dict(counts)), ""]
    if failures:
        out += [f"**Failing items** ({len(failures)})", ""]
        for nodeid, problem in list(failures.items())[:MAX_FAILURES]:
            out.append(f"- `{_code(nodeid)}`: {_inline(problem)}")
        if len(failures) > MAX_FAILURES:
            out.append(f"- ... and {len(failures) - MAX_FAILURES} more")
        out.append("")
    return "\n".join(out) + "\n"


def _counts_table(counts: dict[str, int]) -> str:
    words = [word for word in OUTCOME_ORDER if counts.get(word)] + sorted(
        word for word in counts if word not in OUTCOME_ORDER and counts[word])
    return "\n".join([f"| {' | '.join(words)} |", f"|{'---:|' * len(words)}",
                      f"| {' | '.join(str(counts[word]) for word in words)} |"])


def _failure(item: dict[str, Any]) -> list[str]:
    name = item["nodeid"].rpartition("::")[2] or f"{item['kind']}[{item['id']}]"
    lines = str(item.get("message", "")).strip().splitlines() or ["failed"]
    shown = lines[:MESSAGE_LINES] + ([f"[{len(lines) - MESSAGE_LINES} more lines]"] if len(lines) > MESSAGE_LINES else [])
    fence = "````"  # a message holding ``` cannot close it
    return [f"- `{_code(name)}` ({item['outcome']})", "", f"  {fence}text",
            *(f"  {line[:300]}" for line in shown), f"  {fence}", ""]


def _number(value: object) -> str:
    return f"{value:,}" if isinstance(value, int) else "-"


def _inline(text: str) -> str:
    """Text on one Markdown line, its HTML inert."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\n", " ")


def _cell(text: str) -> str:
    return _inline(text).replace("|", "\\|")


def _code(text: str) -> str:
    return text.replace("`", "'")
