"""Each run's served site kept in its results (`<run folder>/site/`), so the review page can play
the build after the run's scratch folder is gone.

The build's output is the graded code's: the copy never follows a symlink out of it (a symlink is
copied as the file it names only when that file is inside the output), never copies a fifo,
socket or device, keeps every path inside the run's folder, and is bounded in bytes, files and
depth. A site over a bound is not copied at all, and the run says so (`site` in results.json, a
line of the summary and of report.html). The copy is made when the last item of a run is torn
down, before that item's report is logged and before the run lets go of its build folder
(`pytest_tcab_run_finished`): so whatever writes the run's results.json, as the run ends or at the
session's end, in this process or an xdist controller, reads the copy's record (`site.json`).
"""

from __future__ import annotations

import json
import os
import shutil
import stat
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any

import pytest

SITE_FOLDER = "site"
"""Where a run's folder keeps the copy of its build's static output."""
SITE_RECORD = "site.json"
"""What the copy found, beside it: read into results.json's `site`."""
SITE_SIZE_OPTION = "--tcab-site-size"
SITE_FILES_OPTION = "--tcab-site-files"
DEFAULT_SITE_SIZE = 256 * 2**20
DEFAULT_SITE_FILES = 5_000
MAX_DEPTH = 32
"""Folders nested deeper than this are past the bound: no served site needs them, a hostile one uses them."""
MAX_SKIPPED_SHOWN = 20


@dataclass(frozen=True)
class Bounds:
    """What a run's site may hold to be kept."""

    size: int = DEFAULT_SITE_SIZE
    files: int = DEFAULT_SITE_FILES
    depth: int = MAX_DEPTH


@dataclass
class _Plan:
    files: list[tuple[Path, tuple[str, ...], int]] = field(default_factory=list)
    """(real source path, relative parts, size in bytes) of each file to copy."""
    folders: list[tuple[str, ...]] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    over: str | None = None
    size: int = 0


def copy_site(output: Path, dest: Path, bounds: Bounds) -> dict[str, Any]:
    """Copy the static output `output` to `dest` (replaced whole), within `bounds`; returns the record.

    The record: `copied`, and then `files`, `bytes` and `skipped` (what was left out and why), or
    `reason` (the bound the site is over, or why there is nothing to copy)."""
    if dest.exists():
        shutil.rmtree(dest)
    root = Path(os.path.realpath(output))
    if not root.is_dir():
        return {"copied": False, "reason": f"the build's output {output} is not a folder"}
    plan = _plan(root, bounds)
    if plan.over is not None:
        return {"copied": False, "reason": plan.over, "skipped": plan.skipped[:MAX_SKIPPED_SHOWN]}
    partial = dest.with_name(dest.name + ".partial")
    if partial.exists():
        shutil.rmtree(partial)
    partial.mkdir(parents=True)
    for parts in plan.folders:
        partial.joinpath(*parts).mkdir()
    copied = 0
    for source, parts, size in plan.files:
        copied += _copy_file(source, partial.joinpath(*parts), size)
    partial.rename(dest)
    return {"copied": True, "path": SITE_FOLDER, "files": len(plan.files), "bytes": copied,
            "skipped": plan.skipped[:MAX_SKIPPED_SHOWN]}


def _plan(root: Path, bounds: Bounds) -> _Plan:
    """Every file and folder to copy, found without following a symlink out of `root`; stops at the
    first bound passed."""
    plan = _Plan()
    stack: list[tuple[Path, tuple[str, ...]]] = [(root, ())]
    while stack and plan.over is None:
        folder, parts = stack.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
        except OSError as exc:
            plan.skipped.append(f"{'/'.join(parts) or '.'}: unreadable ({exc.strerror})")
            continue
        for entry in entries:
            relative = (*parts, entry.name)
            shown = "/".join(relative)
            kind, real, size = _entry_kind(entry, root)
            if kind == "folder":
                if len(relative) > bounds.depth:
                    plan.over = f"the site nests folders deeper than {bounds.depth} ({shown})"
                    break
                plan.folders.append(relative)
                stack.append((Path(entry.path), relative))
            elif kind == "file":
                plan.files.append((real, relative, size))
                plan.size += size
                if len(plan.files) > bounds.files:
                    plan.over = f"the site holds more than {bounds.files} files (bound: {SITE_FILES_OPTION})"
                    break
                if plan.size > bounds.size:
                    plan.over = (f"the site holds more than {_mib(bounds.size)} (bound: {SITE_SIZE_OPTION}; "
                                 f"{shown} alone is {_mib(size)})")
                    break
            else:
                plan.skipped.append(f"{shown}: {kind}")
    plan.folders.sort(key=len)
    return plan


def _entry_kind(entry: os.DirEntry[str], root: Path) -> tuple[str, Path, int]:
    """("folder" | "file", real path, size) for what may be copied, else (why it is not, ...)."""
    try:
        info = entry.stat(follow_symlinks=False)
    except OSError as exc:
        return f"unreadable ({exc.strerror})", Path(entry.path), 0
    if stat.S_ISDIR(info.st_mode):
        return "folder", Path(entry.path), 0
    if stat.S_ISREG(info.st_mode):
        return "file", Path(entry.path), info.st_size
    if not stat.S_ISLNK(info.st_mode):
        return "not a regular file (a fifo, socket or device)", Path(entry.path), 0
    real = Path(os.path.realpath(entry.path))
    if not real.is_relative_to(root):
        return "a symlink out of the build's output", real, 0
    try:
        target = real.stat()
    except OSError:
        return "a dangling symlink", real, 0
    if not stat.S_ISREG(target.st_mode):
        return "a symlink to something other than a file", real, 0
    return "file", real, target.st_size


def _copy_file(source: Path, dest: Path, size: int) -> int:
    """Copy at most `size` bytes of `source` (opened without following a symlink, checked to be a
    regular file once open); returns the bytes written."""
    try:
        fd = os.open(source, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return 0
    with os.fdopen(fd, "rb") as body:
        if not stat.S_ISREG(os.fstat(body.fileno()).st_mode):
            return 0
        written = 0
        with dest.open("xb") as out:
            while written < size:
                chunk = body.read(min(2**20, size - written))
                if not chunk:
                    break
                out.write(chunk)
                written += len(chunk)
        return written


def _mib(size: int) -> str:
    return f"{size / 2**20:.1f} MiB"


def site_entry(run_folder: Path) -> dict[str, Any]:
    """results.json's `site` of the run whose folder is `run_folder`, when its copy was attempted."""
    try:
        record = json.loads((run_folder / SITE_RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {"site": record} if isinstance(record, dict) else {}


def site_note(site: dict[str, Any] | None) -> str | None:
    """The line a summary and report.html show about a run's site copy: only when it was not kept."""
    if not site or site.get("copied"):
        return None
    return f"site: not kept for review ({site.get('reason', 'no reason recorded')})"


def bounds_of(config: pytest.Config) -> Bounds:
    return Bounds(size=int(config.getoption("tcab_site_size") or DEFAULT_SITE_SIZE),
                  files=int(config.getoption("tcab_site_files") or DEFAULT_SITE_FILES))


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    """The last item of a run (the next belongs to another run, or to none) copies its site, while
    the build folder is still there and before its teardown report is made."""
    run = getattr(item, "run", None)
    if run is None or (nextitem is not None and getattr(nextitem, "run", None) is run):
        return
    build = run.finished_build
    if build is None or not build.ok or build.output_dir is None:
        return
    folder: Path = run.out_dir
    record = copy_site(build.output_dir, folder / SITE_FOLDER, bounds_of(item.config))
    (folder / SITE_RECORD).write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
