"""What a session of many runs writes: each run's results.json and report.html in its own folder
under `--tcab-out`, and at the top sweep.json and index.html; and the sweep's terminal summary.

The rows come from the session's results.json data (every run it graded), the runs that could
not be collected (their collection report, or a `--tcab-run` folder that is not there) and, with
`--tcab-resume`, the runs an earlier sweep graded; `--tcab-compare` adds what changed since one.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from pytest_tcab.options import RUN_OPTION
from pytest_tcab.run.context import run_folder_name
from pytest_tcab.run.report.compare import change_lines
from pytest_tcab.run.report.compare import compare
from pytest_tcab.run.report.html import write_report
from pytest_tcab.run.report.index import write_index
from pytest_tcab.run.report.leaderboard import leaderboard
from pytest_tcab.run.report.leaderboard import table_lines
from pytest_tcab.run.report.results import ResultsRecorder
from pytest_tcab.run.report.sweep import BAD_INPUT
from pytest_tcab.run.report.sweep import GRADED
from pytest_tcab.run.report.sweep import STATUSES
from pytest_tcab.run.report.sweep import SWEEP_FILE
from pytest_tcab.run.report.sweep import bad_input_row
from pytest_tcab.run.report.sweep import sweep_row


def write_sweep(data: dict[str, Any], out_dir: Path, *, form: str, media: str, extra_rows: list[dict[str, Any]],
                previous: tuple[str, list[dict[str, Any]]] | None = None) -> list[Path]:
    """Write every run's folder, sweep.json and index.html (with what changed since the `previous`
    rows, when given: where they came from, and the rows); returns sweep.json's and index.html's paths."""
    rows = list(extra_rows)
    session = {key: value for key, value in data.items() if key != "runs"}
    for run in data["runs"]:
        if not in_sweep(run):
            continue
        folder = out_dir / run_folder_name(run["run"])
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "results.json").write_text(json.dumps({**session, "runs": [run]}, indent=2) + "\n", encoding="utf-8")
        report = write_report({**session, "runs": [run]}, folder, form)
        rows.append(sweep_row(run, report.relative_to(out_dir).as_posix()))
    extra = {"compare": compare(rows, previous[1], previous[0])} if previous is not None else None
    document = sweep_document(rows, tool=data.get("tool", {}), media=media, extra=extra)
    path = out_dir / SWEEP_FILE
    path.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    return [path, write_index(document, out_dir)]


def in_sweep(run: dict[str, Any]) -> bool:
    """Whether a run of results.json is a row: not when `-k` or `-m` left every item of it out."""
    return bool(run["items"] or run.get("not_graded"))


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


class SweepWriter:
    """Registered in run mode: writes the sweep when the session graded (or was given) more than
    one run, or compares with or resumes an earlier one; ends the terminal summary with its table."""

    def __init__(self, config: pytest.Config, out_dir: Path, recorder: ResultsRecorder, *,
                 previous: tuple[str, list[dict[str, Any]]] | None = None,
                 resumed: tuple[Path, list[dict[str, Any]]] | None = None) -> None:
        self.config = config
        self.out_dir = out_dir
        self.recorder = recorder
        self.previous = previous
        """`--tcab-compare`: where the earlier sweep is, and its rows."""
        self.resumed = resumed
        """`--tcab-resume`: the earlier sweep's folder, and the rows of the runs it graded."""
        self.bad: dict[str, dict[str, Any]] = {}
        """Rows of the runs that could not be collected, by run."""
        self.document: dict[str, Any] | None = None
        self.written: list[Path] = []

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        found = getattr(report, "tcab_run", None)
        if report.failed and found:
            reason = "; ".join(line.strip() for line in report.longreprtext.splitlines() if line.strip())
            self.bad[found["run"]] = bad_input_row(found["run"], found["source"], reason)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if hasattr(self.config, "workerinput"):
            return
        from pytest_tcab.runs import missing_folders

        for folder in missing_folders(self.config):
            self.bad.setdefault(folder.name, bad_input_row(folder.name, str(folder),
                                                           f"{RUN_OPTION}: {folder} is not a folder (it does not exist)"))
            if session.exitstatus == pytest.ExitCode.OK:
                session.exitstatus = pytest.ExitCode.TESTS_FAILED  # a run that could not be graded
        data = self.recorder.data or self.recorder.results()
        extra = [*self.bad.values(), *self._resumed_rows()]
        if len([run for run in data["runs"] if in_sweep(run)]) + len(extra) < 2 and self.previous is None and self.resumed is None:
            return
        self.out_dir.mkdir(parents=True, exist_ok=True)
        self.written = write_sweep(data, self.out_dir, form=self.config.getoption("tcab_report"),
                                   media=self.config.getoption("tcab_media"), extra_rows=extra, previous=self.previous)
        self.document = json.loads(self.written[0].read_text(encoding="utf-8"))

    def _resumed_rows(self) -> list[dict[str, Any]]:
        """The runs the earlier sweep graded, their folders brought along when it was elsewhere."""
        if self.resumed is None:
            return []
        folder, rows = self.resumed
        for row in rows:
            earlier = folder / run_folder_name(row["run"])
            if earlier.is_dir() and earlier.resolve() != (self.out_dir / earlier.name).resolve():
                shutil.copytree(earlier, self.out_dir / earlier.name, dirs_exist_ok=True)
        return [{**row, "resumed": True} for row in rows]

    @pytest.hookimpl(trylast=True)
    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.document is None:
            return
        terminalreporter.section("tcab sweep", sep="-")
        statuses = ", ".join(f"{count} {status}" for status, count in self.document["statuses"].items() if count)
        terminalreporter.write_line(f"{len(self.document['runs'])} runs: {statuses}")
        for row in self.document["runs"]:
            if row["status"] != GRADED:
                terminalreporter.write_line(f"  {row['run']}: {row['error']}", red=row["status"] == BAD_INPUT,
                                            yellow=row["status"] != BAD_INPUT)
        if self.document.get("compare"):
            for line in change_lines(self.document["compare"]):
                terminalreporter.write_line(line)
        for path in self.written:
            terminalreporter.write_line(f"wrote {path}")
        for line in table_lines(self.document["leaderboard"]):
            terminalreporter.write_line(line)
