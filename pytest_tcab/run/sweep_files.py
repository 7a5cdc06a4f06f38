"""What a session of many runs writes: each run's results.json and report.html in its own folder
under `--tcab-out`, and at the top sweep.json and index.html.

Given the session's results.json data (every run it graded) and the rows of runs that could not
be collected, and optionally the rows of an earlier sweep to compare with or resume from.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pytest_tcab.run.context import run_folder_name
from pytest_tcab.run.html import write_report
from pytest_tcab.run.index import write_index
from pytest_tcab.run.leaderboard import leaderboard
from pytest_tcab.run.sweep import STATUSES
from pytest_tcab.run.sweep import SWEEP_FILE
from pytest_tcab.run.sweep import sweep_row


def write_sweep(data: dict[str, Any], out_dir: Path, *, form: str, media: str, extra_rows: list[dict[str, Any]],
                comparison: dict[str, Any] | None = None) -> list[Path]:
    """Write every run's folder, sweep.json and index.html; returns sweep.json's and index.html's paths."""
    rows = [*extra_rows]
    session = {key: value for key, value in data.items() if key != "runs"}
    for run in data["runs"]:
        folder = out_dir / run_folder_name(run["run"])
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "results.json").write_text(json.dumps({**session, "runs": [run]}, indent=2) + "\n", encoding="utf-8")
        report = write_report({**session, "runs": [run]}, folder, form)
        rows.append(sweep_row(run, report.relative_to(out_dir).as_posix()))
    document = sweep_document(rows, tool=data.get("tool", {}), media=media,
                              extra={"compare": comparison} if comparison is not None else None)
    path = out_dir / SWEEP_FILE
    path.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    return [path, write_index(document, out_dir)]


def sweep_document(rows: list[dict[str, Any]], *, tool: dict[str, str], media: str,
                   extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """sweep.json: the rows sorted by run name, their status counts and the leaderboard."""
    ordered = sorted(rows, key=lambda row: row["run"])
    return {
        "tool": tool,
        "media": media,
        "statuses": {status: sum(row["status"] == status for row in ordered) for status in STATUSES},
        "runs": ordered,
        "leaderboard": leaderboard(ordered),
        **(extra or {}),
    }
