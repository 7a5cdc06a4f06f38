"""`--tcab-compare=PATH`: what changed since an earlier sweep, per run and per item.

Runs are matched by their run folder's name, else by (case, variant, model, harness), pairs of
one key taken in name order. For each matched pair: the items newly failing and newly passing
(with both sides' media, where the rows carry them), the automated score up or down, a status
that changed; then the runs added and the runs gone; and per (harness, model) and case, the
group's figure now and then.
The comparison is information: it changes no outcome and no exit status.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pytest_tcab.errors import TcabError
from pytest_tcab.run.report.sweep import SWEEP_FILE
from pytest_tcab.run.report.sweep import shape_problem
from pytest_tcab.run.report.sweep import sweep_row

FAILING = frozenset({"failed", "over-ceiling", "counted-failed"})
_MATCH_KEY = ("case", "variant", "model", "harness")


class SweepUnreadable(TcabError):
    """The earlier sweep named by `--tcab-compare` or `--tcab-resume` cannot be read."""


def read_sweep_rows(path: Path, option: str) -> list[dict[str, Any]]:
    """The rows of an earlier session: `PATH/sweep.json`, the file itself, or the runs of
    `PATH/results.json` (a session that graded one run writes no sweep.json)."""
    candidates = [path / SWEEP_FILE, path / "results.json"] if path.is_dir() else [path]
    found = next((candidate for candidate in candidates if candidate.is_file()), None)
    if found is None:
        raise SweepUnreadable(f"{option}: {path} holds no {SWEEP_FILE} or results.json; give an earlier "
                              "--tcab-out folder or its sweep.json")
    try:
        data = json.loads(found.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise SweepUnreadable(f"{option}: {found} cannot be read: {exc}") from None
    except json.JSONDecodeError as exc:
        raise SweepUnreadable(f"{option}: {found}:{exc.lineno}: not valid JSON: {exc.msg}") from None
    if isinstance(data, dict) and "leaderboard" not in data and isinstance(data.get("runs"), list):
        try:  # results.json: its runs, made rows
            data = {"runs": [sweep_row(run, None) for run in data["runs"]]}
        except (KeyError, TypeError, AttributeError):
            raise SweepUnreadable(f"{option}: {found} is not the results.json or sweep.json a run writes") from None
    problem = shape_problem(data)
    if problem is not None:
        raise SweepUnreadable(f"{option}: {found}: {problem}; expected the sweep.json a sweep writes")
    return list(data["runs"])


def compare(rows: list[dict[str, Any]], previous: list[dict[str, Any]], against: str) -> dict[str, Any]:
    """What changed from `previous` rows to `rows`; `against` names where the previous came from."""
    pairs, added, gone = match_runs(rows, previous)
    changes = [change for now, was in pairs if (change := _change(now, was))]
    return {
        "against": against,
        "runs": changes,
        "unchanged": len(pairs) - len(changes),
        "added": sorted(row["run"] for row in added),
        "gone": sorted(row["run"] for row in gone),
        "groups": group_changes(rows, previous),
    }


def group_changes(rows: list[dict[str, Any]], previous: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per (harness, model) and case in either sweep: the figure its case is ranked by, now and then."""
    from pytest_tcab.run.report.leaderboard import leaderboard

    def figures(board_rows: list[dict[str, Any]]) -> dict[tuple[Any, ...], dict[str, Any]]:
        return {(cell["harness"], cell["model"], cell["case"]): cell["figure"] for cell in leaderboard(board_rows)}

    now, was = figures(rows), figures(previous)
    changes = []
    for key in sorted(set(now) | set(was), key=lambda key: tuple(str(part or "") for part in key)):
        shown = now.get(key) or was[key]
        changes.append({
            "harness": key[0], "model": key[1], "case": key[2], "name": shown["name"],
            "unit": shown.get("unit"), "better": shown.get("better"), "statistic": shown.get("statistic"),
            **{side: ({part: figure.get(part) for part in ("value", "low", "high", "n")} if figure else None)
               for side, figure in (("now", now.get(key)), ("was", was.get(key)))},
        })
    return changes


def match_runs(rows: list[dict[str, Any]], previous: list[dict[str, Any]]
               ) -> tuple[list[tuple[dict[str, Any], dict[str, Any]]], list[dict[str, Any]], list[dict[str, Any]]]:
    """Pairs (now, was), the rows added and the rows gone."""
    earlier = {row["run"]: row for row in previous}
    pairs = [(row, earlier.pop(row["run"])) for row in sorted(rows, key=_name) if row["run"] in earlier]
    paired = {now["run"] for now, _ in pairs}
    rest_now: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for row in sorted(rows, key=_name):
        if row["run"] not in paired:
            rest_now.setdefault(_key(row), []).append(row)
    rest_was: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for row in sorted(earlier.values(), key=_name):
        rest_was.setdefault(_key(row), []).append(row)
    added: list[dict[str, Any]] = []
    for key, now_rows in rest_now.items():
        was_rows = rest_was.get(key, []) if key[0] is not None else []  # bad input names no case
        taken = min(len(now_rows), len(was_rows))
        pairs += zip(now_rows[:taken], was_rows[:taken], strict=True)
        added += now_rows[taken:]
        if taken:
            rest_was[key] = was_rows[taken:]
    gone = [row for rows_of_key in rest_was.values() for row in rows_of_key]
    return pairs, added, gone


def _change(now: dict[str, Any], was: dict[str, Any]) -> dict[str, Any] | None:
    before, after = was.get("items", {}), now.get("items", {})
    shared = sorted(set(before) & set(after))
    failing = [key for key in shared if after[key] in FAILING and before[key] not in FAILING]
    passing = [key for key in shared if after[key] == "passed" and before[key] in FAILING]
    change: dict[str, Any] = {}
    if failing:
        change["newly_failing"] = failing
    if passing:
        change["newly_passing"] = passing
    media = {key: {"now": _media_of(now, key), "was": _media_of(was, key)} for key in [*failing, *passing]}
    if any(sides["now"] or sides["was"] for sides in media.values()):
        change["media"] = {key: sides for key, sides in media.items() if sides["now"] or sides["was"]}
    if now.get("score") != was.get("score") and None not in (now.get("score"), was.get("score")):
        change["score"] = {"was": was["score"], "now": now["score"],
                           "change": round(float(now["score"]) - float(was["score"]), 6)}
    if now.get("status") != was.get("status"):
        change["status"] = {"was": was.get("status"), "now": now.get("status")}
    if not change:
        return None
    return {"run": now["run"], "previous": was["run"], **change}


def change_lines(comparison: dict[str, Any]) -> list[str]:
    """The comparison as terminal lines: one per changed run, then the runs added and gone."""
    lines = [(f"compared with {comparison['against']}: {len(comparison['runs'])} runs changed, "
             f"{comparison['unchanged']} unchanged, {len(comparison['added'])} added, {len(comparison['gone'])} gone")]
    for change in comparison["runs"]:
        name = change["run"] if change["run"] == change["previous"] else f"{change['run']} (was {change['previous']})"
        parts = []
        if "score" in change:
            score = change["score"]
            parts.append(f"score {score['was']:.3f} -> {score['now']:.3f} ({'up' if score['change'] > 0 else 'down'})")
        if "status" in change:
            parts.append(f"{change['status']['was']} -> {change['status']['now']}")
        if change.get("newly_failing"):
            parts.append("newly failing: " + ", ".join(change["newly_failing"]))
        if change.get("newly_passing"):
            parts.append("newly passing: " + ", ".join(change["newly_passing"]))
        lines.append(f"  {name}: {'; '.join(parts)}")
    if comparison["added"]:
        lines.append("  added: " + ", ".join(comparison["added"]))
    if comparison["gone"]:
        lines.append("  gone: " + ", ".join(comparison["gone"]))
    return lines


def _media_of(row: dict[str, Any], key: str) -> list[dict[str, Any]]:
    """The media a row's item recorded (none for rows of sweeps written before rows carried them)."""
    detail = (row.get("details") or {}).get(key) or {}
    return list(detail.get("media") or [])


def _name(row: dict[str, Any]) -> str:
    return str(row["run"])


def _key(row: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(row.get(part) for part in _MATCH_KEY)
