"""sweep.json: one row per run of a session that graded more than one, and the leaderboard.

A row is what a benchmark operator compares runs by: who produced the run (model, harness,
labels), what it was graded against (case, version, variant, engine), how it ended (its
outcome counts, its automated score, its duration, the media mode) and its status:

- `graded`: the run's items ran; a failed build or failed verdicts are still a graded run;
- `not graded`: grading itself broke through no act of the produced code (the judge runtime
  died, the browser could not start, the grading machine ran out of disk, the session was
  interrupted); excluded from the leaderboard's means and counted beside them;
- `bad input`: the run's folder, run.toml or case is wrong; its one-line reason is the error.

The rows are built from results.json's runs (`sweep_row`) and from the runs that could not be
collected (`bad_input_row`), so a merge or a resume builds the same rows from what shards and
earlier sessions wrote.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

SWEEP_FILE = "sweep.json"
GRADED, NOT_GRADED, BAD_INPUT = "graded", "not graded", "bad input"
STATUSES = (GRADED, NOT_GRADED, BAD_INPUT)
WHO = ("model", "harness", "labels")
"""What run.toml says about who produced a run, carried by every item of it."""
DECIDED = ("passed", "failed", "over-ceiling", "counted-failed")
"""Item outcomes that decide something; the rest (skipped, recorded, excluded) decide nothing."""


def sweep_row(run: dict[str, Any], report: str | None) -> dict[str, Any]:
    """The row of one run of results.json; `report` is its report.html relative to sweep.json."""
    items = run.get("items", [])
    not_graded = sorted({item["not_graded"] for item in items if item.get("not_graded")}
                        | ({run["not_graded"]} if run.get("not_graded") else set()))
    return {
        **identity_of(run),
        "status": NOT_GRADED if not_graded else GRADED,
        "error": f"not graded: {'; '.join(not_graded)}" if not_graded else None,
        "counts": dict(run.get("counts", {})),
        "score": automated_score(run),
        "duration_s": round(sum(float(item.get("duration_s", 0.0)) for item in items), 3),
        "media": run.get("media", "all"),
        "partial": bool(run.get("partial")),
        "report": report,
        "items": {item_key(item): item["outcome"] for item in items},
        **({"graded_by": dict(run["graded_by"])} if run.get("graded_by") else {}),
    }


def bad_input_row(label: str, source: str, reason: str, who: dict[str, Any] | None = None) -> dict[str, Any]:
    """The row of a run that could not be collected: its folder, run.toml or case is wrong."""
    return {
        "run": label, "source": source, "case": None, "version": None, "variant": None, "engine": None,
        "layout": None, "model": None, "harness": None, "labels": {}, **(who or {}),
        "status": BAD_INPUT, "error": reason, "counts": {}, "score": None, "duration_s": 0.0,
        "media": None, "partial": False, "report": None, "items": {},
    }


def identity_of(run: dict[str, Any]) -> dict[str, Any]:
    """Who a run is and what it was graded against, as a row says it."""
    return {
        "run": run["run"],
        "source": run.get("source"),
        **{key: run.get(key) for key in ("case", "version", "variant", "engine", "layout")},
        "model": run.get("model"),
        "harness": run.get("harness"),
        "labels": dict(run.get("labels") or {}),
    }


def item_key(item: dict[str, Any]) -> str:
    """An item as compare matches it across sweeps: `build`, `validate[ball-moves]`."""
    return item["kind"] if item["kind"] == item["id"] else f"{item['kind']}[{item['id']}]"


def automated_score(run: dict[str, Any]) -> float | None:
    """The automated part of a run's score, between 0 and 1; None when it has none.

    A checklist run: the points its verdicts earned over the points available. A game
    definition's run: its requirements passed over those decided. A run with neither (a
    performance or asset run): its items passed over its items decided. A tournament ranks its
    entrants against each other, not against the case, so it has no score of its own.
    """
    if "tournament" in run:
        return None
    score = run.get("score")
    if isinstance(score, dict) and score.get("available"):
        return round(float(score["earned"]) / float(score["available"]), 6)
    requirements = run.get("requirements")
    if isinstance(requirements, dict):
        value = requirements.get("score")
        return None if value is None else float(value)
    outcomes = Counter(item["outcome"] for item in run.get("items", []))
    decided = sum(outcomes[word] for word in DECIDED)
    return round(outcomes["passed"] / decided, 6) if decided else None


def shape_problem(data: Any) -> str | None:
    """What keeps `data` from being a sweep.json a later session can read, or None."""
    if not isinstance(data, dict) or not isinstance(data.get("runs"), list):
        return "no `runs` list at the top"
    for index, row in enumerate(data["runs"]):
        if not isinstance(row, dict) or not isinstance(row.get("run"), str):
            return f"`runs[{index}]` has no `run` name"
        if row.get("status") not in STATUSES:
            return f"`runs[{index}].status` is not one of {', '.join(STATUSES)}"
        if not isinstance(row.get("items", {}), dict):
            return f"`runs[{index}].items` is not a table of item outcomes"
    return None
