"""The journal and whole files of a sweep, run folder names a run cannot turn into an escape, shards
by a hash of the run's name, progress lines and the versions that graded a run."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pytest_tcab.run.context import run_folder_name
from pytest_tcab.run.report.journal import JOURNAL_FILE
from pytest_tcab.run.report.journal import append
from pytest_tcab.run.report.journal import journal_rows
from pytest_tcab.run.report.journal import write_whole
from pytest_tcab.run.report.leaderboard import leaderboard
from pytest_tcab.run.report.leaderboard import table_lines
from pytest_tcab.run.report.progress import Progress
from pytest_tcab.run.report.sweep import bad_input_row
from pytest_tcab.shards import hash_index


def row(name: str, **more: object) -> dict[str, object]:
    return {**bad_input_row(name, "src", "why"), "status": "graded", "case": "c", **more}


def test_a_whole_file_replaces_the_old_in_one_rename_and_leaves_nothing_beside_it(tmp_path: Path) -> None:
    target = tmp_path / "results.json"
    target.write_text("old")
    before = os.stat(target).st_ino
    write_whole(target, "new")
    assert target.read_text() == "new" and os.stat(target).st_ino != before  # a new file, renamed over
    assert os.stat(target).st_mode & 0o044  # readable as open() makes it, not mkstemp's private mode
    assert sorted(path.name for path in tmp_path.iterdir()) == ["results.json"]


def test_a_torn_last_line_is_skipped_and_closed_before_the_next(tmp_path: Path) -> None:
    append(tmp_path, row("a"))
    with (tmp_path / JOURNAL_FILE).open("a") as journal:
        journal.write('{"run": "b", "sta')  # killed mid-write
    assert list(journal_rows(tmp_path)) == ["a"]
    append(tmp_path, row("c"))
    append(tmp_path, row("a", counts={"passed": 1}))  # graded again: the later line wins
    found = journal_rows(tmp_path)
    assert list(found) == ["c", "a"] and found["a"]["counts"] == {"passed": 1}


def test_a_hostile_name_stays_one_line(tmp_path: Path) -> None:
    append(tmp_path, row('x\n{"run": "forged", "status": "graded"}\n'))
    lines = (tmp_path / JOURNAL_FILE).read_text().splitlines()
    assert len(lines) == 1 and list(journal_rows(tmp_path)) == ['x\n{"run": "forged", "status": "graded"}\n']


def test_lines_that_are_not_rows_are_skipped(tmp_path: Path) -> None:
    (tmp_path / JOURNAL_FILE).write_text('[1, 2]\n{"run": 3}\n\n\xff\n')
    append(tmp_path, row("a"))
    assert list(journal_rows(tmp_path)) == ["a"]


@pytest.mark.parametrize("label", ["..", ".", "../../etc", "/", "sweep.json", "journal.jsonl", "shard-plan.json",
                                   ".tcab", "x" * 400, "index.html"])
def test_a_run_folder_is_one_part_under_out_and_none_of_its_files(label: str) -> None:
    name = run_folder_name(label)
    assert "/" not in name and not name.startswith(".") and len(name) <= 120
    assert name not in ("sweep.json", "journal.jsonl", "index.html", "results.json", "report.html", "shard-plan.json")


def test_a_shard_is_stable_when_runs_are_added() -> None:
    names = [f"run-{i}" for i in range(200)]
    shard_of = {name: hash_index(name, 4) for name in names}
    assert set(shard_of.values()) == {0, 1, 2, 3}
    more = {name: hash_index(name, 4) for name in [*names, "new-a", "new-b"]}
    assert {name: more[name] for name in names} == shard_of


def test_a_progress_line_counts_the_carried_runs_done() -> None:
    progress = Progress(carried=2)
    progress.to_grade = 2
    line = progress.run_finished({"run": "r", "status": "graded", "counts": {"failed": 1, "passed": 6},
                                  "duration_s": 14.2})
    assert line.startswith("run 3/4 r: graded, 6 passed 1 failed (14 s); about ") and line.endswith(" left")
    assert progress.run_finished({"run": "s", "status": "not graded", "counts": {}, "duration_s": 0}) == (
        "run 4/4 s: not graded, no items (0.0 s)")
    assert json.loads(json.dumps(progress.document(done=True)))["finished"] == 4


def test_a_cell_graded_by_different_versions_is_confounded() -> None:
    same = {"chromium": "120.0", "pytest-tcab": "1.0"}
    board = leaderboard([row("a", score=1.0, graded_by=same), row("b", score=0.5, graded_by={"pytest-tcab": "1.0"})])
    assert board[0]["confounded"] == [] and board[0]["tool"] == []
    board = leaderboard([row("a", score=1.0, graded_by=same), row("b", score=0.5, graded_by={"chromium": "121.0"})])
    assert board[0]["confounded"] == ["tool"] and board[0]["tool"] == ["chromium 120.0", "chromium 121.0"]


def test_a_cell_graded_with_different_options_is_confounded_naming_the_option() -> None:
    options = {"build_memory": 4 * 2**30, "viewport": "1280x720", "media": "all"}
    board = leaderboard([row("a", score=1.0, graded_with=options), row("b", score=0.5, graded_with=dict(options)),
                         row("c", score=0.5)])  # an older run that records no options is not counted against them
    assert board[0]["confounded"] == [] and board[0]["option"] == []
    smaller = {**options, "build_memory": 2**29, "viewport": "800x600"}
    board = leaderboard([row("a", score=1.0, graded_with=options), row("b", score=0.5, graded_with=smaller)])
    assert board[0]["confounded"] == ["option"]
    assert board[0]["option"] == ["--tcab-build-memory=4294967296", "--tcab-build-memory=536870912",
                                  "--tcab-viewport=1280x720", "--tcab-viewport=800x600"]
    assert any("options --tcab-build-memory=4294967296/--tcab-build-memory=536870912" in line
               for line in table_lines(board))
