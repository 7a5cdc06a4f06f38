"""The leaderboard of a sweep: per (harness, model) and case, the mean automated score of its
graded runs, how many there were, and a 95% bootstrap interval of that mean.

Runs are grouped as the public Test Cabinet groups them: by the (harness, model) pair, never
merging harnesses. A run that was not graded is counted beside the mean, never in it; so is a
graded run without a score of its own (a tournament) or a partial one (`-k`, `-m` left items out). The interval's resampling is seeded
from the sorted names of the runs it covers, so the same runs always give the same interval.
A cell whose runs mix case versions or variants (or engines), or were graded by different
versions of a tool, is flagged as confounded: its mean averages different tests. The board presents the figures; it names no winner.
"""

from __future__ import annotations

import hashlib
import statistics
from typing import Any

from pytest_tcab.run.report.sweep import GRADED
from pytest_tcab.run.report.sweep import NOT_GRADED
from pytest_tcab.run.versions import mixed_tools

RESAMPLES = 4000
CONFIDENCE = 0.95


def leaderboard(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One entry per (harness, model) and case, sorted by harness, model and case."""
    cells: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for row in rows:
        if row.get("case") is None:  # bad input that names no case: a row of the sweep, no cell
            continue
        key = (row.get("harness") or "", row.get("model") or "", row["case"])
        cells.setdefault(key, []).append(row)
    return [_cell(harness, model, case, members) for (harness, model, case), members in sorted(cells.items())]


def _cell(harness: str, model: str, case: str, rows: list[dict[str, Any]]) -> dict[str, Any]:
    scored = sorted((row for row in rows if _scored(row)), key=lambda row: row["run"])
    scores = [float(row["score"]) for row in scored]
    mixed = {part: sorted({str(row.get(part)) for row in rows})
             for part in ("version", "variant", "engine")}
    confounded = [part for part, values in mixed.items() if len(values) > 1]
    mixed["tool"] = mixed_tools(rows)  # graded by different versions (Chromium, Node, wasmtime, the plugin)
    confounded += ["tool"] if mixed["tool"] else []
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
        **mixed,
        "confounded": confounded,
    }


def _scored(row: dict[str, Any]) -> bool:
    """A graded run with a score of its own, every item of it run (a partial run's score is not comparable)."""
    return row["status"] == GRADED and row.get("score") is not None and not row.get("partial")


def bootstrap_interval(scores: list[float], names: list[str]) -> tuple[float | None, float | None]:
    """The percentile bootstrap interval of the mean of `scores` (of the runs `names`), resampled
    in name order with a seed from the sorted names: the same runs give the same interval."""
    if not scores:
        return None, None
    if len(scores) == 1:
        return round(scores[0], 6), round(scores[0], 6)
    import numpy as np  # only where there is something to resample: a session of single runs never loads it

    values = np.asarray([score for _, score in sorted(zip(names, scores, strict=True))], dtype=float)
    rng = np.random.default_rng(interval_seed(names))
    means = values[rng.integers(0, len(values), size=(RESAMPLES, len(values)))].mean(axis=1)
    tail = (1.0 - CONFIDENCE) / 2 * 100
    low, high = np.percentile(means, [tail, 100 - tail])
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
    if cell["mean"] is None:
        return "-"
    return f"{cell['mean']:.3f} [{cell['low']:.3f}, {cell['high']:.3f}]"


def _aside(cell: dict[str, Any]) -> str:
    notes = []
    if cell["not_graded"]:
        notes.append(f"{cell['not_graded']} not graded")
    if cell["unscored"]:
        notes.append(f"{cell['unscored']} unscored")
    if cell["confounded"]:
        notes.append("confounded: mixes " + ", ".join(
            f"{part}s {'/'.join(cell[part])}" for part in cell["confounded"]))
    return "; ".join(notes)
