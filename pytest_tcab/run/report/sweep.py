"""sweep.json: one row per run of a session that graded more than one, and the leaderboard.

A row is what a benchmark operator compares runs by: who produced the run (model, harness,
labels), what it was graded against (case, version, variant, engine), how it ended (its
outcome counts, its automated score, its duration, the media mode) and its status:

- `graded`: the run's items ran; a failed build or failed verdicts are still a graded run;
- `not graded`: grading itself broke through no act of the produced code (the judge runtime
  died, the browser could not start, the grading machine ran out of disk, the session was
  interrupted); excluded from the leaderboard's means and counted beside them;
- `bad input`: the run's folder, run.toml or case is wrong; its one-line reason is the error.

Each row also carries its `figure`: what the run is ranked by, with its unit and which way is
better (a performance run's fuel total, lower is better; any other run's automated score,
higher is better), and its `details`: per item, what index.html shows when the row is opened
(the outcome, the failure's one line, the media's paths).

The rows are built from results.json's runs (`sweep_row`) and from the runs that could not be
collected (`bad_input_row`), so a merge or a resume builds the same rows from what shards and
earlier sessions wrote.
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path
from typing import Any

from pytest_tcab.bounded import bound
from pytest_tcab.run.report.reviewed import row_review
from pytest_tcab.run.report import attempts

SWEEP_FILE = "sweep.json"
GRADED, NOT_GRADED, BAD_INPUT = "graded", "not graded", "bad input"
STATUSES = (GRADED, NOT_GRADED, BAD_INPUT)
WHO = ("model", "harness", "labels")
"""What run.toml says about who produced a run, carried by every item of it."""
DECIDED = ("passed", "failed", "over-ceiling", "counted-failed")
"""Item outcomes that decide something; the rest (skipped, recorded, excluded) decide nothing."""
SCORE, FUEL, STANDINGS = "automated score", "fuel total", "standings"
"""What a case's runs are ranked by: a performance case by the fuel total of its correct runs,
an adversarial case by its tournament's standings, every other case by the automated score."""
CORRECT, OVER_CEILING, INCORRECT = "correct", "over-ceiling", "incorrect"
"""A performance run's state: every answer right within the ceiling (its fuel total counts), right
but past the ceiling on some case (shown with its fuel, never in a median), or wrong somewhere."""
MESSAGE_LIMIT = 300
"""What a row keeps of an item's failure: its first line, cut to this many characters."""


def sweep_row(run: dict[str, Any], report: str | None, out_dir: Path | None = None) -> dict[str, Any]:
    """The row of one run of results.json; `report` is its report.html relative to sweep.json,
    `out_dir` sweep.json's folder (the media paths under it are kept relative to it, so the rows
    of a sweep and of its shards merged are the same, and a moved sweep keeps its links)."""
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
        "judge_restarts": judge_restarts(run),
        "media": run.get("media", "all"),
        "partial": bool(run.get("partial")),
        "report": report,
        "items": {item_key(item): item["outcome"] for item in items},
        "figure": figure_of(run),
        "details": {item_key(item): item_detail(item, out_dir) for item in items},
        **({"graded_by": dict(run["graded_by"])} if run.get("graded_by") else {}),
        "review": row_review(run),  # what the reviewers decided (run/report/reviewed.py)
        **({"graded_with": dict(run["graded_with"])} if run.get("graded_with") else {}),
        **attempts.row_fields(run),  # its attempts, and whether only a retry graded it (run.report.attempts)
    }


def judge_restarts(run: dict[str, Any]) -> int:
    """How often the judge runtime died under one of the run's scripts and was started again:
    the grader's own trouble, said aloud, since each such script was run once more."""
    return sum(int(item.get("judge_restarts", 0)) for item in run.get("items", []))


def bad_input_row(label: str, source: str, reason: str, who: dict[str, Any] | None = None) -> dict[str, Any]:
    """The row of a run that could not be collected: its folder, run.toml or case is wrong."""
    return {
        "run": label, "source": source, "case": None, "version": None, "variant": None, "engine": None,
        "layout": None, "model": None, "harness": None, "labels": {}, **(who or {}),
        "status": BAD_INPUT, "error": reason, "counts": {}, "score": None, "duration_s": 0.0, "judge_restarts": 0,
        "media": None, "partial": False, "report": None, "items": {}, "figure": None, "details": {},
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

    A checklist run: the points its verdicts earned over the points a validator decided (None
    when none did: its score is all the reviewer's). A game
    definition's run: its requirements passed over those decided. A run with neither (a
    performance or asset run): its items passed over its items decided. A tournament ranks its
    entrants against each other, not against the case, so it has no score of its own.
    """
    if "tournament" in run:
        return None
    score = run.get("score")
    if isinstance(score, dict):
        return round(float(score["earned"]) / float(score["available"]), 6) if score.get("available") else None
    requirements = run.get("requirements")
    if isinstance(requirements, dict):
        value = requirements.get("score")
        return None if value is None else float(value)
    outcomes = Counter(item["outcome"] for item in run.get("items", []))
    decided = sum(outcomes[word] for word in DECIDED)
    return round(outcomes["passed"] / decided, 6) if decided else None


def figure_of(run: dict[str, Any]) -> dict[str, Any]:
    """What the run is ranked by, its value, unit and which way is better.

    A performance run: its fuel total when every answer was right within the ceiling; a run
    right but past the ceiling keeps the fuel it spent (marked `over-ceiling`); a wrong one has
    no value (`incorrect`). A tournament: the standings (each entrant's place, points and fuel).
    Any other run: its automated score.
    """
    if "tournament" in run:
        standings = run["tournament"].get("standings") or []
        return {"name": STANDINGS, "value": None, "unit": "points", "better": "higher",
                "standings": [{"name": str(line.get("name")), "points": line.get("points"), "fuel": line.get("fuel"),
                               "house": bool(line.get("house"))} for line in standings]}
    performance = run.get("performance")
    if isinstance(performance, dict):
        cases = performance.get("cases") or {}
        spent = [case.get("fuel") for case in cases.values()]
        measured = sum(spent) if spent and all(isinstance(fuel, int) for fuel in spent) else None
        state = (CORRECT if performance.get("within_ceiling") else OVER_CEILING if performance.get("correct")
                 else INCORRECT)
        value = performance.get("total_fuel") if state == CORRECT else measured if state == OVER_CEILING else None
        return {"name": FUEL, "value": value, "unit": "fuel", "better": "lower", "state": state}
    return {"name": SCORE, "value": automated_score(run), "unit": "share of points", "better": "higher"}


_MEDIA_KEYS = (("expected", "expected"), ("actual", "actual"), ("diff", "diff"),
               ("failure_screenshot", "the page when it failed"))


def item_detail(item: dict[str, Any], out_dir: Path | None = None) -> dict[str, Any]:
    """What index.html shows of an item when its run's row is opened: the outcome, the failure's
    (or the skip's) one line, and the media it recorded (relative to `out_dir` when under it,
    else as results.json has them)."""
    detail: dict[str, Any] = {"outcome": item["outcome"]}
    if item["outcome"] != "passed" and item.get("message"):
        detail["message"] = one_line(str(item["message"]))
    media: list[dict[str, Any]] = []
    for key, label in _MEDIA_KEYS:
        if isinstance(item.get(key), str):
            media.append({"label": label, "path": item[key], "kind": "image"})
    if item["kind"] == "proof" and isinstance(item.get("media"), str):
        media.append({"label": f"proof {item['id']}", "path": item["media"], "kind": item.get("media_kind") or "image"})
    recorded = item.get("media")
    for shown in recorded if isinstance(recorded, list) else []:  # a verdict's outputs: stills and clips (a clip with its poster frame)
        if isinstance(shown, dict) and isinstance(shown.get("path"), str):
            if isinstance(shown.get("baseline"), str):  # expected | observed, as the report shows them
                media.append({"label": f"{shown.get('output')}: expected", "path": shown["baseline"],
                              "kind": shown.get("kind") or "image", "poster": shown.get("baseline_poster")})
            media.append({"label": f"{shown.get('output')}: observed", "path": shown["path"],
                          "kind": shown.get("kind") or "image", "poster": shown.get("poster")})
    for decided in item.get("decided_by") or []:
        if isinstance(decided, dict) and isinstance(decided.get("media"), str):
            media.append({"label": f"page after {decided.get('validator')}", "path": decided["media"], "kind": "image"})
    if isinstance(item.get("fuel"), int):
        detail["fuel"] = item["fuel"]
    if media:
        detail["media"] = [{key: _under(value, out_dir) if key in ("path", "poster") else value
                            for key, value in medium.items() if value is not None} for medium in media]
    return detail


def _under(path: str, out_dir: Path | None) -> str:
    """`path` relative to `out_dir` (POSIX) when it lies under it; else as it is."""
    if out_dir is None or not os.path.isabs(path):
        return path
    try:
        return Path(path).resolve().relative_to(out_dir.resolve()).as_posix()
    except ValueError:
        return path


def one_line(text: str) -> str:
    """The first line of `text` that says something, cut to `MESSAGE_LIMIT` characters."""
    line = next((line.strip() for line in bound(text).splitlines() if line.strip()), "")
    return line if len(line) <= MESSAGE_LIMIT else line[:MESSAGE_LIMIT - 1] + "…"


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


def held_shards(count: int, plan: Any, merged: list[int], missing: list[int]) -> dict[str, Any]:
    """`shards` of a merge's results.json and sweep.json: how many shards the sweep was dealt into and
    how (`hash`, or a duration plan's digest), which of them it merged, and which are missing
    (none, unless `--tcab-allow-partial` merged without them)."""
    return {"count": count, "plan": plan, "merged": merged, "missing": missing}


def shards_line(held: dict[str, Any]) -> str:
    """What a merge of shards holds, and what it lacks: the first thing its reader must know."""
    merged = f"merged {indexes_text(held['merged']) or 'no shard'} of {held['count']} (dealt by {held['plan']})"
    if not held["missing"]:
        return merged
    return f"{merged}; MISSING {indexes_text(held['missing'])}: their runs are in no figure of this sweep"


def indexes_text(indexes: list[int]) -> str:
    """`shard 2`, `shards 0, 3`, or nothing for none."""
    if not indexes:
        return ""
    return ("shard " if len(indexes) == 1 else "shards ") + ", ".join(str(index) for index in indexes)
