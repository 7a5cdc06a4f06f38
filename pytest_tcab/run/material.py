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

The same walk also digests what the build's copy reads (`Material.built`), which
`--tcab-share-builds` keys its builds on (`run.sandbox.shared`): so a run's tree is walked once.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from pytest_tcab.run.sandbox.steps import SKIPPED_ANYWHERE
from pytest_tcab.run.sandbox.steps import SKIPPED_AT_ROOT

_CHUNK = 1 << 20
GRADED_AS = ".tcab"
"""The run's own folder (its run.toml): material, yet left out of the build's copy."""
LEFT_OUT_AT_ROOT = SKIPPED_AT_ROOT - {GRADED_AS}
"""The copy's root folders left out, but for `.tcab/`: what the run is graded as is material too."""


@dataclass(frozen=True)
class Material:
    """A run's build digest and, from the same walk, the digest of what its build's copy reads."""

    digest: str
    """The build digest (see the module's docstring)."""
    built: str | None
    """The sha256 of the entries the build's copy takes (all but the run's `.tcab/`), each with its
    full mode, as the copy keeps it; None when one of them could not be read, or is a grader's
    folder outside `.tcab/` (not digested): such a run builds for itself."""


class _Entry(NamedTuple):
    line: bytes
    """Its line of the build digest."""
    copied: bool
    """The build's copy takes it (it is not the run's `.tcab/` or under it)."""
    copy: bytes
    """What the build's copy holds beyond the line: a file's full mode in octal (the build digest
    keeps only its x bit), or an entry it drops and says so (a link leaving the tree, a special file)."""
    read: bool
    """It could be read (a file's bytes, a folder's listing)."""


def material_digest(folder: Path, excluded: Iterable[Path] = ()) -> str:
    """The sha256 of the produced material under `folder` (see the module's docstring)."""
    return material_of(folder, excluded).digest


def material_of(folder: Path, excluded: Iterable[Path] = ()) -> Material:
    """The run's `Material`, from one walk of `folder`."""
    root = Path(os.path.realpath(folder))
    left_out = {Path(os.path.realpath(path)) for path in excluded}
    digest = hashlib.sha256(b"tcab-material-1\n")
    built = hashlib.sha256(b"tcab-built-1\n")
    readable = True
    for entry in _entries(root, left_out):
        digest.update(entry.line)
        if entry.copied:  # length-framed: no run of entries frames as another
            record = entry.line + entry.copy
            built.update(str(len(record)).encode() + b"\0" + record)
            readable = readable and entry.read
    return Material(digest.hexdigest(), built.hexdigest() if readable else None)


def _entries(root: Path, left_out: set[Path]) -> Iterator[_Entry]:
    """Each entry's line, depth first in path order (a stack, not recursion: a produced tree may be
    deeper than Python's recursion limit)."""
    graded_as = root / GRADED_AS
    listed = _listed(root)
    yield _Entry(b"", True, b"", listed is not None)  # the root: no line of its own
    stack = [iter(listed or ())]
    while stack:
        entry = next(stack[-1], None)
        if entry is None:
            stack.pop()
            continue
        path = Path(entry.path)
        relative = os.fsencode(path.relative_to(root).as_posix())
        copied = not (path == graded_as and entry.is_dir(follow_symlinks=False)) and graded_as not in path.parents
        if path in left_out:  # the grader's: not material, yet the copy takes it, so it builds alone
            yield _Entry(b"", copied, b"", False)
            continue
        try:
            if entry.is_symlink():
                target = os.path.realpath(path)
                if target == str(root) or target.startswith(str(root) + os.sep):
                    line = b"L\0" + relative + b"\0" + os.fsencode(os.path.relpath(target, path.parent)) + b"\n"
                    yield _Entry(line, copied, b"", True)
                else:
                    yield _Entry(b"", copied, b"dropped link\0" + relative, True)
            elif entry.is_dir(follow_symlinks=False):
                if entry.name in SKIPPED_ANYWHERE or (path.parent == root and entry.name in LEFT_OUT_AT_ROOT):
                    continue
                listed = _listed(path)
                yield _Entry(b"D\0" + relative + b"\n", copied, b"", listed is not None)
                stack.append(iter(listed or ()))
            elif entry.is_file(follow_symlinks=False):
                mode = entry.stat(follow_symlinks=False).st_mode
                content, read = _file_digest(path)
                line = b"F\0" + relative + b"\0" + content + b"\0" + (b"x" if mode & 0o111 else b"-") + b"\n"
                yield _Entry(line, copied, f"{mode & 0o7777:o}".encode(), read)
            else:
                yield _Entry(b"", copied, b"dropped special\0" + relative, True)
        except OSError as exc:  # vanished or unreadable: named as such, so a later readable tree differs
            yield _Entry(b"E\0" + relative + b"\0" + str(exc.errno).encode() + b"\n", copied, b"", False)


def _listed(folder: Path) -> list[os.DirEntry[str]] | None:
    """The folder's entries in name order; None when it cannot be listed."""
    try:
        with os.scandir(folder) as entries:
            return sorted(entries, key=lambda entry: entry.name)
    except OSError:
        return None


def _file_digest(path: Path) -> tuple[bytes, bool]:
    """The file's sha256 and size, and whether it could be read."""
    digest = hashlib.sha256()
    try:
        with path.open("rb") as handle:
            while chunk := handle.read(_CHUNK):
                digest.update(chunk)
    except OSError as exc:  # unreadable: named as such, so a later readable copy differs
        return f"unreadable {exc.errno}".encode(), False
    return str(digest.hexdigest()).encode() + b"\0" + str(path.stat().st_size).encode(), True
