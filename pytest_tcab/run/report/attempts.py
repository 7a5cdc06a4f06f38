"""A run's attempts on record: every time grading broke and the run was graded again, in this
session (`--tcab-retries`, `run.attempts`) or a later one (`--tcab-resume`).

An item graded more than once carries its `attempts` (each with its outcome and, when the grader
broke, why it was not graded). A run's `attempts` in results.json folds them: attempt k is the
k-th try of each of its items, `not graded` when any of them was; a resumed run's earlier attempts
come first, from the earlier sweep's row. The sweep counts the runs graded only after a retry
beside each figure, never hiding them in it: retries shift what a sweep measures.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from pytest_tcab.run.report.records import RunRecord
from pytest_tcab.run.report.stability import row_gradings

GRADED, NOT_GRADED = "graded", "not graded"
"""A run's statuses as `run.report.sweep` names them (it reads its rows' attempts from here)."""

_earlier_key = pytest.StashKey[dict[str, list[dict[str, Any]]]]()


def remember_earlier(config: pytest.Config, rows: list[dict[str, Any]]) -> None:
    """`--tcab-resume`: the attempts of the runs the earlier sweep did not grade, which this session
    grades again and appends to."""
    config.stash[_earlier_key] = {row["run"]: earlier_attempts(row) for row in rows if row.get("status") == NOT_GRADED}


def earlier_attempts(row: dict[str, Any]) -> list[dict[str, Any]]:
    """A row's attempts, or the one attempt a row from before attempts were kept stands for."""
    if isinstance(row.get("attempts"), list) and row["attempts"]:
        return [dict(attempt) for attempt in row["attempts"]]
    reason = str(row.get("error") or "").removeprefix("not graded: ")
    return [{"attempt": 1, "session": 1, "status": row.get("status"), "not_graded": [reason] if reason else []}]


def run_attempts(config: pytest.Config, record: RunRecord) -> dict[str, Any]:
    """results.json's `attempts` of one run: the earlier sessions' first, then this one's."""
    earlier = config.stash.get(_earlier_key, {}).get(record.identity["run"], [])
    session = 1 + max((int(attempt.get("session", 1)) for attempt in earlier), default=0)
    reasons: dict[int, set[str]] = {}
    for entry in record.items.values():
        tries: Counter[int] = Counter()
        for attempt in entry.get("attempts") or [{"not_graded": entry.get("not_graded")}]:
            grading = int(attempt.get("grading", 1))
            tries[grading] += 1
            found = reasons.setdefault(tries[grading], set())
            if attempt.get("not_graded"):
                found.add(str(attempt["not_graded"]))
    reasons = reasons or {1: set()}
    if record.not_graded:
        reasons[max(reasons)].add(record.not_graded)
    own = [{"session": session, "status": NOT_GRADED if why else GRADED, "not_graded": sorted(why)}
           for _, why in sorted(reasons.items())]
    return {"attempts": [{"attempt": number, "session": int(attempt.get("session", 1)), "status": attempt.get("status"),
                          "not_graded": list(attempt.get("not_graded") or [])}
                         for number, attempt in enumerate([*earlier, *own], start=1)]}


def row_fields(run: dict[str, Any]) -> dict[str, Any]:
    """What a sweep row says of a run's attempts: all of them, whether it was graded only after a
    retry (its last attempt graded, an earlier one not), and each regraded item's outcomes."""
    attempts = [dict(attempt) for attempt in run.get("attempts") or []]
    last_graded = bool(attempts) and attempts[-1].get("status") == GRADED
    return {"attempts": attempts, "graded_after_retry": last_graded and len(attempts) > 1,
            "gradings": row_gradings(run)}


def graded_after_retry(rows: list[dict[str, Any]]) -> int:
    """How many of `rows` were graded only after a retry: said beside a figure, never left out of it."""
    return sum(bool(row.get("graded_after_retry")) for row in rows)


def retry_lines(run: dict[str, Any]) -> list[str]:
    """The terminal's account of a run's attempts, when it had more than one."""
    attempts = run.get("attempts") or []
    if len(attempts) < 2:
        return []
    said = "; ".join(f"{attempt['attempt']}: {attempt['status']}"
                     + (f" ({', '.join(attempt['not_graded'])})" if attempt.get("not_graded") else "")
                     for attempt in attempts)
    return [f"attempts: {len(attempts)} ({said})"]
