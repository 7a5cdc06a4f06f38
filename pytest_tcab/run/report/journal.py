"""What a sweep's `--tcab-out` keeps through a SIGKILL: whole files and a journal of finished runs.

Every file a sweep writes goes to a temporary name in its folder and is renamed over the old
one, so a reader (or a resumed session) sees the old file or the new, never half of one. The
journal (`journal.jsonl` at the top) gets one JSON line per finished run, its sweep.json row,
appended and fsynced as the run ends: the one record a killed sweep is resumed from. A line
the kill tore (no newline, not JSON, not a row) is skipped; a later line of a run replaces an
earlier one (the run was graded again).
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from pytest_tcab.run.context import run_folder_name
from pytest_tcab.run.report.compare import SweepUnreadable
from pytest_tcab.run.report.compare import read_sweep_rows
from pytest_tcab.run.report.sweep import shape_problem
from pytest_tcab.run.report.sweep import sweep_row

JOURNAL_FILE = "journal.jsonl"


def write_whole(path: Path, text: str) -> Path:
    """Write `path` so that it is never seen half-written: a temporary file beside it, renamed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(handle, 0o666 & ~_umask())  # as open() would make it: mkstemp's file is private
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return path


@functools.cache
def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def replace_from(staging: Path, folder: Path) -> None:
    """Move every file under `staging` to the same place under `folder`, each by one rename."""
    for source in sorted(staging.rglob("*")):
        if source.is_file():
            target = folder / source.relative_to(staging)
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(source, target)
    shutil.rmtree(staging, ignore_errors=True)


def append(out_dir: Path, row: dict[str, Any]) -> None:
    """Append `row` as one line to the journal and fsync it before returning.

    json.dumps escapes every newline a run's name or message holds, so a row is one line; a
    line a kill left without its newline is closed first, so it cannot swallow this one.
    """
    line = json.dumps(row, separators=(",", ":"), sort_keys=True) + "\n"
    out_dir.mkdir(parents=True, exist_ok=True)
    fd = os.open(out_dir / JOURNAL_FILE, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            line = "\n" + line
        os.write(fd, line.encode("utf-8"))
        os.fsync(fd)
    finally:
        os.close(fd)


def start(out_dir: Path) -> None:
    """A sweep that resumes nothing begins a journal of its own (an older one is set aside whole)."""
    journal = out_dir / JOURNAL_FILE
    if journal.exists():
        os.replace(journal, out_dir / f"{JOURNAL_FILE}.previous")


def journal_rows(out_dir: Path) -> dict[str, dict[str, Any]]:
    """The journal's rows by run, in the order they were appended, the last line of a run winning."""
    try:
        text = (out_dir / JOURNAL_FILE).read_bytes().decode("utf-8", errors="replace")
    except OSError:
        return {}
    rows: dict[str, dict[str, Any]] = {}
    for line in text.split("\n")[:-1]:  # the part after the last newline is a torn line
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            continue
        if shape_problem({"runs": [row]}) is None:
            rows.pop(row["run"], None)
            rows[row["run"]] = row
    return rows


def resumable_rows(path: Path, option: str) -> list[dict[str, Any]]:
    """Every run a sweep's folder `path` (or its sweep.json) says was finished: its sweep.json or
    results.json, then each run folder's results.json, then the journal, the later winning.

    Raises SweepUnreadable when none of these is there, or a sweep.json is there and broken.
    """
    rows: dict[str, dict[str, Any]] = {}
    try:
        rows.update((row["run"], row) for row in read_sweep_rows(path, option))
    except SweepUnreadable:
        # A sweep killed before its first sweep.json still left its journal and run folders.
        if not path.is_dir() or not ((path / JOURNAL_FILE).exists() or any(path.glob("*/results.json"))):
            raise
    if path.is_dir():
        for results in sorted(path.glob("*/results.json")):
            rows.update((row["run"], row) for row in _folder_rows(results, path))
        rows.update(journal_rows(path))
    return list(rows.values())


def _folder_rows(results: Path, top: Path) -> list[dict[str, Any]]:
    """The rows of a run folder's own results.json (a run written whole before its journal line)."""
    try:
        data = json.loads(results.read_text(encoding="utf-8"))
        runs = [run for run in data["runs"] if run_folder_name(run["run"]) == results.parent.name]
        report = (results.parent / "report.html").relative_to(top).as_posix()
        rows = [sweep_row(run, report) for run in runs]
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return []
    return [row for row in rows if shape_problem({"runs": [row]}) is None]
