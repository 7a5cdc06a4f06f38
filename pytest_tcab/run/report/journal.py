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
import tempfile
from pathlib import Path
from typing import Any

from pytest_tcab.run.report.compare import read_sweep_rows
from pytest_tcab.run.report.sweep import shape_problem

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
    """Every run a sweep's folder `path` says was finished: its journal's rows when it has one
    (with or without a sweep.json beside it), else those of its sweep.json or results.json (a
    single run's session, a merge). A run whose files were written but whose journal line was
    not (killed in between) was still in flight: it is graded again.

    Raises SweepUnreadable when there is neither.
    """
    if path.is_dir() and (path / JOURNAL_FILE).is_file():
        return list(journal_rows(path).values())
    return read_sweep_rows(path, option)
