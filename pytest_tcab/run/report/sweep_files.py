"""What a session of many runs writes: each run's results.json and report.html in its own folder
under `--tcab-out`, and at the top sweep.json and index.html; and the sweep's terminal summary.

The rows come from the session's results.json data (every run it graded), the runs that could
not be collected (their collection report, or a `--tcab-run` folder that is not there) and, with
`--tcab-resume`, the runs an earlier sweep graded; `--tcab-compare` adds what changed since one.

A sweep is written as it goes: when a run's last item has ended (its finished teardown report,
logged where results are recorded: the serial process or the xdist controller), its folder's
files are written whole, its row is appended to the journal (`journal`), a progress line is
printed, and sweep.json and index.html are rewritten from the rows so far (at most every
`REWRITE_EVERY_S`); at the end, every file once more from the whole session.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from pytest_tcab.options import RUN_OPTION
from pytest_tcab.run.context import run_folder_name
from pytest_tcab.run.report import journal
from pytest_tcab.run.report.carried import Resumed
from pytest_tcab.run.report.carried import moved
from pytest_tcab.run.report.attempts import graded_after_retry
from pytest_tcab.run.report.compare import change_lines
from pytest_tcab.run.report.compare import compare
from pytest_tcab.run.report.html import SELF_CONTAINED
from pytest_tcab.run.report.html import Media
from pytest_tcab.run.report.html import render
from pytest_tcab.run.report.index import INDEX_FILE
from pytest_tcab.run.report.index import render_index
from pytest_tcab.run.report.comparisons import decision
from pytest_tcab.run.report.comparisons import difference_lines
from pytest_tcab.run.report.comparisons import missing_baseline
from pytest_tcab.run.report.leaderboard import Rules
from pytest_tcab.run.report.leaderboard import leaderboard
from pytest_tcab.run.report.leaderboard import table_lines
from pytest_tcab.run.report.progress import Progress
from pytest_tcab.run.report.results import ResultsRecorder
from pytest_tcab.run.report.reviewed import sweep_reviews
from pytest_tcab.run.report.stability import verdict_stability
from pytest_tcab.run.report.sweep import BAD_INPUT
from pytest_tcab.run.report.sweep import GRADED
from pytest_tcab.run.report.sweep import STATUSES
from pytest_tcab.run.report.sweep import SWEEP_FILE
from pytest_tcab.run.report.sweep import bad_input_row
from pytest_tcab.run.report.sweep import held_shards
from pytest_tcab.run.report.sweep import sweep_row
from pytest_tcab.shards import PLAN_FILE

REWRITE_EVERY_S = 3.0
"""The live sweep.json and index.html are rewritten at most this often (and always at the end)."""
SESSION_KEYS = ("shard", "shards", "graded_with")
"""What sweep.json says of the session as results.json does: which shard it is (or, merged, which
shards it holds and lacks) and the options it graded with."""


def write_sweep(data: dict[str, Any], out_dir: Path, *, form: str, media: str, extra_rows: list[dict[str, Any]],
                previous: tuple[str, list[dict[str, Any]]] | None = None,
                progress: dict[str, Any] | None = None, written: dict[str, dict[str, Any]] | None = None,
                rules: Rules | None = None) -> list[Path]:
    """Write every run's folder, sweep.json and index.html (with what changed since the `previous`
    rows, when given: where they came from, and the rows); returns sweep.json's and index.html's paths.

    `written` are the rows of the runs whose folders were written as they ended: those are not
    written again, unless the session found the suite changed (a key of every run's results.json)."""
    rows = list(extra_rows)
    kept = {} if written is None or "suite_changed" in data else written
    for run in data["runs"]:
        if in_sweep(run):
            rows.append(kept.get(run["run"]) or write_run(data, run, out_dir, form))
    extra: dict[str, Any] = {}
    if previous is not None:
        extra["compare"] = compare(rows, previous[1], previous[0])
    if progress is not None:
        extra["progress"] = progress
    session = {key: data[key] for key in SESSION_KEYS if key in data}
    return write_document(sweep_document(rows, tool=data.get("tool", {}), media=media, session=session, extra=extra,
                                         rules=rules),
                          out_dir)


def write_run(data: dict[str, Any], run: dict[str, Any], out_dir: Path, form: str) -> dict[str, Any]:
    """Write the folder of `run` (one run of results.json `data`), each file whole; returns its row."""
    folder = out_dir / run_folder_name(run["run"])
    session = {key: value for key, value in data.items() if key != "runs"}
    own = {**session, "runs": [run]}
    journal.write_whole(folder / "results.json", json.dumps(own, indent=2) + "\n")
    report = journal.write_whole(folder / "report.html", render(own, Media(folder, form == SELF_CONTAINED)))
    return sweep_row(run, report.relative_to(out_dir).as_posix(), out_dir)


def write_document(document: dict[str, Any], out_dir: Path) -> list[Path]:
    """sweep.json and index.html of `document`, each replaced whole; returns their paths."""
    path = journal.write_whole(out_dir / SWEEP_FILE, json.dumps(document, indent=2) + "\n")
    return [path, journal.write_whole(out_dir / INDEX_FILE, render_index(document, out_dir))]


def in_sweep(run: dict[str, Any]) -> bool:
    """Whether a run of results.json is a row: not when `-k` or `-m` left every item of it out."""
    return bool(run["items"] or run.get("not_graded"))


def sweep_document(rows: list[dict[str, Any]], *, tool: dict[str, str], media: str,
                   session: dict[str, Any] | None = None, extra: dict[str, Any] | None = None,
                   rules: Rules | None = None) -> dict[str, Any]:
    """sweep.json: the rows sorted by run name, their status counts, the leaderboard (figured by
    `rules`: `--tcab-catastrophic`, `--tcab-baseline`, `--tcab-target-width`), what the operator
    decides on (the differences between groups and the suite-wide figures), and what results.json
    says of the `session` (`SESSION_KEYS`)."""
    ordered = sorted(rows, key=lambda row: row["run"])
    session = session or {}
    board = leaderboard(ordered, rules or Rules())
    return {
        "tool": tool,
        "media": media,
        "statuses": {status: sum(row["status"] == status for row in ordered) for status in STATUSES},
        "judge_restarts": sum(int(row.get("judge_restarts", 0)) for row in ordered),
        "graded_after_retry": graded_after_retry(ordered),  # run.report.attempts
        "stability": verdict_stability(ordered),  # --tcab-regrade (run.report.stability)
        "runs": ordered,
        "leaderboard": board,
        **decision(board, rules or Rules()),
        "reviews": sweep_reviews(ordered),  # overrides and agreement (run/report/reviewed.py)
        **({"graded_with": dict(session["graded_with"])} if "graded_with" in session else {}),
        **({"shard": dict(session["shard"])} if "shard" in session else {}),
        **({"shards": held_shards(**session["shards"])} if "shards" in session else {}),
        **(extra or {}),
    }


class SweepWriter:
    """Registered in run mode: writes the sweep when the session graded (or was given) more than
    one run, or compares with or resumes an earlier one, as it goes when `live`; ends the
    terminal summary with its table."""

    def __init__(self, config: pytest.Config, out_dir: Path, recorder: ResultsRecorder, *,
                 previous: tuple[str, list[dict[str, Any]]] | None = None,
                 resumed: Resumed | None = None, live: bool = False) -> None:
        self.config = config
        self.out_dir = out_dir
        self.recorder = recorder
        self.previous = previous
        """`--tcab-compare`: where the earlier sweep is, and its rows."""
        self.resumed = resumed
        """`--tcab-resume`: the earlier sweep's folder, and the runs it graded and keeps."""
        self.live = live and not hasattr(config, "workerinput")
        """Whether each run is written as it ends (a sweep, in the process that records results)."""
        self.bad: dict[str, dict[str, Any]] = {}
        """Rows of the runs that could not be collected, by run."""
        self.rows: dict[str, dict[str, Any]] = {}
        """The rows of the journal so far: the runs carried from the earlier sweep, then each finished run."""
        self.progress = Progress(carried=len(resumed.rows) if resumed is not None else 0)
        self._rewritten = float("-inf")
        self._tool: dict[str, str] = {}
        self._session: dict[str, Any] = {}
        self.document: dict[str, Any] | None = None
        self.written: list[Path] = []

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        """Write the shard's plan, when it was dealt by one; begin the journal (or go on with the one
        being resumed), the carried runs in it."""
        from pytest_tcab.run.collect import shard_plan

        plan = None if hasattr(self.config, "workerinput") else shard_plan(self.config)
        if plan is not None and plan.shards is not None:  # so that a resume deals by the same plan
            journal.write_whole(self.out_dir / PLAN_FILE, json.dumps(plan.as_json(), indent=2) + "\n")
        if not self.live:
            return
        self.out_dir.mkdir(parents=True, exist_ok=True)
        same = self.resumed is not None and self.resumed.folder.resolve() == self.out_dir.resolve()
        if not same:
            journal.start(self.out_dir)
        known = journal.journal_rows(self.out_dir)
        for row in self._resumed_rows():
            earlier = {key: value for key, value in row.items() if key != "resumed"}
            if known.get(row["run"]) != earlier:
                journal.append(self.out_dir, earlier)
            self.rows[row["run"]] = row

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        found = getattr(report, "tcab_run", None)
        if report.failed and found:
            reason = "; ".join(line.strip() for line in report.longreprtext.splitlines() if line.strip())
            self.bad[found["run"]] = bad_input_row(found["run"], found["source"], reason)

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        if session.items:
            self.progress.to_grade = len({run.label for item in session.items
                                          if (run := getattr(item, "run", None)) is not None})
        if session.items and not hasattr(self.config, "workerinput") and not self._sharded():
            # A baseline that names no group of the sweep: said before anything is graded.
            groups = {(run.harness or "", run.model or "") for item in session.items
                      if (run := getattr(item, "run", None)) is not None}
            groups |= {(row.get("harness") or "", row.get("model") or "") for row in self._resumed_rows_seen()}
            problem = missing_baseline(groups, Rules.of(self.config))
            if problem:
                raise pytest.UsageError(problem)

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        """pytest-xdist's controller collects nothing: a worker's node ids say how many runs there are."""
        from pytest_tcab.run.scheduling import run_scope

        if self.progress.to_grade is None:
            self.progress.to_grade = len({scope for nodeid in ids if (scope := run_scope(nodeid))})

    @pytest.hookimpl(trylast=True)  # after the recorder has the report
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """A run's last item has ended: its folder, its journal line, its progress line, the live sweep."""
        data = getattr(report, "tcab", None)
        if not self.live or not data or not data.get("run_finished"):
            return
        label = data["run"]["run"]
        results = self.recorder.run_results(label)
        self._tool = results.get("tool", {})
        self._session = {key: results[key] for key in SESSION_KEYS if key in results}
        try:
            row = write_run(results, results["runs"][0], self.out_dir, self.config.getoption("tcab_report"))
            journal.append(self.out_dir, row)
        except OSError as exc:  # the grading machine's disk: the end of the session tries again
            self._say(f"run {label}: could not be written to {self.out_dir} as it ended ({exc}); "
                      "it is written at the end", yellow=True)
            return
        self.rows.pop(label, None)
        self.rows[label] = row
        self._say(self.progress.run_finished(row), yellow=row["status"] != GRADED)
        if time.monotonic() - self._rewritten >= REWRITE_EVERY_S:
            self._rewrite()

    def _rewrite(self) -> None:
        """sweep.json and index.html of the runs finished so far, and how far the sweep has come."""
        rows = [*self.bad.values(), *self.rows.values()]
        document = sweep_document(rows, tool=self._tool, media=self.config.getoption("tcab_media"),
                                  session=self._session, extra={"progress": self.progress.document()},
                                  rules=Rules.of(self.config))
        try:
            write_document(document, self.out_dir)
        except OSError:
            return  # the next run, or the end, writes it again
        self._rewritten = time.monotonic()

    def _say(self, line: str, **markup: bool) -> None:
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_line(line, **markup)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if hasattr(self.config, "workerinput"):
            return
        from pytest_tcab.run.collect import shard_plan
        from pytest_tcab.runs import missing_folders

        shard = self.config.getoption("tcab_shard", None)
        for folder in missing_folders(self.config):
            plan = shard_plan(self.config)
            if shard is not None and plan is not None and plan.index_of(folder.name) != shard[0]:
                continue  # another shard's
            self.bad.setdefault(folder.name, bad_input_row(folder.name, str(folder),
                                                           f"{RUN_OPTION}: {folder} is not a folder (it does not exist)"))
            if session.exitstatus == pytest.ExitCode.OK:
                session.exitstatus = pytest.ExitCode.TESTS_FAILED  # a run that could not be graded
        if session.exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED and self.resumed is not None and self.resumed.rows:
            session.exitstatus = pytest.ExitCode.OK  # every run of it was kept: the sweep is done, not empty
        data = self.recorder.data or self.recorder.results()
        fresh = [run for run in data["runs"] if run["run"] not in self.recorder.carried]  # graded by this session
        graded = {run["run"] for run in fresh if in_sweep(run)}
        carried = [row for row in (self.rows.values() if self.live else self._resumed_rows())
                   if row.get("resumed") and row["run"] not in graded]
        extra = [*self.bad.values(), *carried]
        if len(graded) + len(extra) < 2 and self.previous is None and self.resumed is None:
            return
        self.out_dir.mkdir(parents=True, exist_ok=True)
        self.written = write_sweep({**data, "runs": fresh}, self.out_dir, form=self.config.getoption("tcab_report"),
                                   media=self.config.getoption("tcab_media"), extra_rows=extra, previous=self.previous,
                                   progress=self.progress.document(done=True) if self.live else None,
                                   written={label: row for label, row in self.rows.items() if not row.get("resumed")},
                                   rules=Rules.of(self.config))
        self.document = json.loads(self.written[0].read_text(encoding="utf-8"))
        if self.document["rules"]["baseline_problem"] and not self._sharded():  # the operator's mistake
            session.exitstatus = pytest.ExitCode.USAGE_ERROR

    def _sharded(self) -> bool:
        """A shard holds some of the sweep's groups: its merge is where a baseline must be found."""
        return self.config.getoption("tcab_shard", None) is not None

    def _resumed_rows_seen(self) -> list[dict[str, Any]]:
        """The earlier sweep's graded rows, as given (nothing copied)."""
        return [] if self.resumed is None else self.resumed.rows

    def _resumed_rows(self) -> list[dict[str, Any]]:
        """The runs the earlier sweep graded, their folders brought along when it was elsewhere, and
        handed to the recorder (so this session's results.json and report.html hold them too)."""
        if self.resumed is None:
            return []
        rows = []
        for row in self.resumed.rows:
            earlier = self.resumed.folder / run_folder_name(row["run"])
            folders = {}
            if earlier.is_dir() and earlier.resolve() != (self.out_dir / earlier.name).resolve():
                shutil.copytree(earlier, self.out_dir / earlier.name, dirs_exist_ok=True)
                folders[earlier.name] = (earlier, self.out_dir / earlier.name)
            run = moved(self.resumed.runs[row["run"]], folders)
            before = json.dumps(run, sort_keys=True)
            self.config.hook.pytest_tcab_run_results(config=self.config, run=run)  # reviews written since, say
            self.recorder.carried[row["run"]] = run
            head = self.resumed.heads.get(row["run"])
            if head is not None and json.dumps(run, sort_keys=True) != before:  # its folder says so too
                row = write_run(head, run, self.out_dir, self.config.getoption("tcab_report"))
            rows.append({**row, "resumed": True})
        return rows

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
        for line in difference_lines(self.document):
            terminalreporter.write_line(line)
        if self.document["rules"]["baseline_problem"]:
            terminalreporter.write_line(f"ERROR: {self.document['rules']['baseline_problem']}", red=True)
