"""The build digest: a sha256 naming the produced material a run was graded from.

A review names the build it reviewed by this digest (`build:`), and a review of a build that has
changed since is stale. The grader computes it, once per run, before any step of the run's build
(the first time the run's scratch folder is asked for) and writes it into results.json, so the
build never decides it.

The material is what the build is made from: exactly the entries `sandbox.steps.prepare_workdir`
copies from the run folder (regular files, and symlinks that stay inside the tree), less
`node_modules/`, `.git/` and `target/` at any depth and the output folders (`dist/`, `build/`,
`out/`) at the root, which a build never starts from; plus the run's `.tcab/` (its run.toml: what
the run is graded as), which the build's copy leaves out; and less the grader's own folders
(`--tcab-out`, `--tcab-reviews`) should they lie inside the run. Each entry adds one line, in
path order, its fields NUL-separated: `D <path>` (a folder), `F <path> <sha256> <size> <x or ->` (a file,
executable or not) or
`L <path> <target>` (a symlink). Timestamps, owners and other mode bits are not material.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from collections.abc import Iterator
from pathlib import Path

from pytest_tcab.run.sandbox.steps import SKIPPED_ANYWHERE
from pytest_tcab.run.sandbox.steps import SKIPPED_AT_ROOT

_CHUNK = 1 << 20
LEFT_OUT_AT_ROOT = SKIPPED_AT_ROOT - {".tcab"}
"""The copy's root folders left out, but for `.tcab/`: what the run is graded as is material too."""


def material_digest(folder: Path, excluded: Iterable[Path] = ()) -> str:
    """The sha256 of the produced material under `folder` (see the module's docstring)."""
    root = Path(os.path.realpath(folder))
    left_out = {Path(os.path.realpath(path)) for path in excluded}
    digest = hashlib.sha256(b"tcab-material-1\n")
    for line in _entries(root, left_out):
        digest.update(line)
    return digest.hexdigest()


def _entries(root: Path, left_out: set[Path]) -> Iterator[bytes]:
    """Each entry's line, depth first in path order (a stack, not recursion: a produced tree may be
    deeper than Python's recursion limit)."""
    stack = [iter(_listed(root))]
    while stack:
        entry = next(stack[-1], None)
        if entry is None:
            stack.pop()
            continue
        path = Path(entry.path)
        if path in left_out:
            continue
        relative = os.fsencode(path.relative_to(root).as_posix())
        try:
            if entry.is_symlink():
                target = os.path.realpath(path)
                if target == str(root) or target.startswith(str(root) + os.sep):
                    yield b"L\0" + relative + b"\0" + os.fsencode(os.path.relpath(target, path.parent)) + b"\n"
            elif entry.is_dir(follow_symlinks=False):
                if entry.name in SKIPPED_ANYWHERE or (path.parent == root and entry.name in LEFT_OUT_AT_ROOT):
                    continue
                yield b"D\0" + relative + b"\n"
                stack.append(iter(_listed(path)))
            elif entry.is_file(follow_symlinks=False):
                executable = b"x" if entry.stat(follow_symlinks=False).st_mode & 0o111 else b"-"
                yield b"F\0" + relative + b"\0" + _file_digest(path) + b"\0" + executable + b"\n"
        except OSError as exc:  # vanished or unreadable: named as such, so a later readable tree differs
            yield b"E\0" + relative + b"\0" + str(exc.errno).encode() + b"\n"


def _listed(folder: Path) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(folder) as entries:
            return sorted(entries, key=lambda entry: entry.name)
    except OSError:
        return []


def _file_digest(path: Path) -> bytes:
    digest = hashlib.sha256()
    try:
        with path.open("rb") as handle:
            while chunk := handle.read(_CHUNK):
                digest.update(chunk)
    except OSError as exc:  # unreadable: named as such, so a later readable copy differs
        return f"unreadable {exc.errno}".encode()
    return str(digest.hexdigest()).encode() + b"\0" + str(path.stat().st_size).encode()
