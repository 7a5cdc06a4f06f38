"""Builds shared by digest (`--tcab-share-builds`): runs of one session whose build would read the
same bytes, under the same commands and caps, build once.

The digest is of what the build step reads, never of what it writes: every file the build's copy
of the run takes (`steps.prepare_workdir`'s rules: dependency caches, root output folders and the
run's `.tcab/` left out, symlinks as the copy makes them), with its mode, the case, its `[build]`
commands and the session's caps and network options. The tree's part is `run.material`'s
`Material.built`, taken in the walk that takes the run's build digest, so a tree is walked once.
Its entries are length-framed and the rest is framed as one JSON line, so two different trees
cannot frame to the same bytes: a run reaches another's digest only by being byte-identical (or
by a SHA-256 collision). Runs that differ only in their `.tcab/run.toml` (who produced the tree,
as what) build alike, so they share a build.

A build is handed on, never copied: when a run that built lets go, its build folder goes to the
next run of the session waiting with the same digest instead of being removed, and that run
serves it from its own server and grades it as its own. What a build left is checked before it is
handed on: the whole build folder (`node_modules` and the output included) must still hash as it
did when the build ended, so a toolchain step or anything else that wrote into it after the build
(a marker for the next run to find) makes the next run build afresh. A failed build is shared as
it is: every run that shares it fails. A build not graded for the machine's reasons (no sandbox,
the host out of room) is not shared: the next run tries for itself.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from collections.abc import Iterator
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pytest_tcab.run.sandbox.disk import RunDisk
from pytest_tcab.run.sandbox.steps import BuildResult

CHUNK = 1 << 20


def inputs_digest(built: str, commands: Mapping[str, str], case: Mapping[str, str], caps: Mapping[str, Any]) -> str:
    """The sha256 of what a build reads: its copied files (`built`, `run.material.Material.built`),
    commands, case and caps."""
    digest = hashlib.sha256()
    digest.update(_line(["build", dict(commands), dict(case), {name: str(value) for name, value in caps.items()}]))
    digest.update(_line(["tree", built]))
    return digest.hexdigest()


def state_digest(folder: Path) -> str | None:
    """The sha256 of everything under `folder` as it is now (no entry left out; times not counted),
    or None when the build left something that cannot be read (a file without read permission)."""
    digest = hashlib.sha256()
    root = Path(os.path.realpath(folder))
    try:
        for entry in _tree(root, root):
            digest.update(_line(entry))
    except OSError:
        return None
    return digest.hexdigest()


def _line(entry: object) -> bytes:
    return json.dumps(entry, sort_keys=True, ensure_ascii=True).encode() + b"\n"


def _tree(root: Path, folder: Path) -> Iterator[list[str]]:
    """One entry per path under `folder`, in name order: `[path, kind, what it holds]`."""
    with os.scandir(folder) as scanned:
        entries = sorted(scanned, key=lambda entry: entry.name)
    for entry in entries:
        path = Path(entry.path)
        rel = path.relative_to(root).as_posix()
        if entry.is_symlink():
            yield [rel, "link", os.path.relpath(os.path.realpath(path), folder)]
        elif entry.is_dir(follow_symlinks=False):
            yield [rel, "dir", ""]
            yield from _tree(root, path)
        elif entry.is_file(follow_symlinks=False):
            yield [rel, "file", f"{_file_digest(path)} {entry.stat(follow_symlinks=False).st_mode & 0o7777:o}"]
        else:
            yield [rel, "special", ""]


def _file_digest(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


@dataclass(frozen=True)
class Handed:
    """A build on its way to the next run with its digest: the result, its folder's disk, who built it."""

    result: BuildResult
    disk: RunDisk | None
    built_by: str
    state: str | None
    """The build folder's `state_digest` when the build ended (None: it could not be read, or
    the folder is gone with its disk: a failed build's, shared for its failure alone)."""


class SharedBuilds:
    """The session's builds waiting for a run with their digest, and the runs that may want one."""

    def __init__(self) -> None:
        self.waiting: dict[int, Callable[[], str | None]] = {}
        """Every run not yet let go, by id: how to get its digest (None: it builds no static site)."""
        self.held: dict[str, Handed] = {}
        self.closed = False
        """The session ended: what is let go from now on is removed, not held."""

    def expect(self, run: object, digest: Callable[[], str | None]) -> None:
        self.waiting[id(run)] = digest

    def take(self, digest: str) -> Handed | None:
        """The build held for `digest`, if its folder is still as the build left it; else None
        (and what was held is removed)."""
        handed = self.held.pop(digest, None)
        if handed is None:
            return None
        if handed.disk is not None and state_digest(handed.result.workdir) != handed.state:
            if handed.disk is not None:
                handed.disk.release()
            return None
        return handed

    def hand_on(self, run: object, digest: str | None, handed: Handed | None) -> bool:
        """When `run` lets go: keep its build for a run still waiting with the same digest (True),
        or say it may be removed (False)."""
        self.waiting.pop(id(run), None)
        if self.closed or digest is None or handed is None or handed.result.not_graded or digest in self.held:
            return False
        if handed.disk is not None and handed.state is None:  # what it left cannot be checked
            return False
        if not any(other() == digest for other in self.waiting.values()):
            return False
        self.held[digest] = handed
        return True

    def release(self) -> None:
        """At the session's end: remove whatever is still held."""
        self.closed = True
        for handed in self.held.values():
            if handed.disk is not None:
                handed.disk.release()
        self.held.clear()


_key = pytest.StashKey[SharedBuilds]()


def shared_builds(config: pytest.Config) -> SharedBuilds | None:
    """The session's shared builds under `--tcab-share-builds`, else None."""
    if not config.getoption("tcab_share_builds"):
        return None
    found = config.stash.get(_key, None)
    if found is None:
        found = config.stash[_key] = SharedBuilds()
        config.add_cleanup(found.release)
    return found


def sharing_figures(config: pytest.Config, digest: str | None, shared_with: str | None) -> dict[str, str]:
    """The build item's figures under `--tcab-share-builds`: the digest of its inputs, and the run
    whose build it served and graded (absent when it built for itself)."""
    if shared_builds(config) is None or digest is None:
        return {}
    if shared_with is None:
        return {"build_inputs": digest}
    return {"build_inputs": digest, "shared_with": shared_with}


def caps_of(config: pytest.Config) -> dict[str, Any]:
    """Every option that bounds or confines a build step (`--tcab-build-*`, `--tcab-no-sandbox`):
    a cap added later counts without being listed here."""
    return {name: value for name, value in sorted(vars(config.option).items())
            if name.startswith("tcab_build") or name == "tcab_no_sandbox"}
