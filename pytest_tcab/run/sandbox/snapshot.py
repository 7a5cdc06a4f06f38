"""Reporter-side material read into a private copy before any build step, and checked at the end.

Validation drivers, baselines, mockups, the performance cases' inputs and expected answers:
what decides a verdict must be what the suite held before the graded code ran, whatever that
code managed to do. Each run's material is copied when the run is collected (before any item,
so before any build step, on every xdist worker) into a folder of mode 0700 outside anything a
sandboxed step can see, with the sha256 of each file; the items read only that copy. A copy is
removed when the last run using it is released, and made again (and checked against the first
digests) if a released run is asked for once more. When the session ends, the files on disk are hashed again: any difference fails the session with "the
suite changed during the run", in the terminal, results.json, report.html and the exit status.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from collections.abc import Iterable
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_tcab.errors import TcabError

SKIPPED = frozenset({"node_modules", ".git", "target", "__pycache__", ".tcab"})
"""Dependency caches, VCS data and run outputs: never reporter-side material."""

SUITE_CHANGED = "the suite changed during the run"
_WORKER_KEY = "tcab_snapshot"
"""Where an xdist worker hands its digests to the controller (`workeroutput`)."""


class SuiteChanged(TcabError):
    """Reporter-side material copied again for a released run is not what the first copy held."""


class Snapshot:
    """The session's private copies, one per case folder, and the digest of every copied file."""

    def __init__(self) -> None:
        self._root: Path | None = None
        self._copies: dict[Path, Path] = {}
        self._users: dict[Path, int] = {}
        """Case folder -> how many runs hold its copy now."""
        self._made = 0
        self.digests: dict[str, str] = {}
        """Suite file (absolute) -> its sha256 when it was copied."""
        self.tops: set[str] = set()
        """Copied top-level folders of the suite (absolute): a file added under one is a change too."""

    def copy(self, folder: Path, relatives: Iterable[str]) -> Path:
        """The private copy of `folder`, holding the top-level entry of each of `relatives`.

        A path brings its whole top-level folder (`validation/spin/moving.mjs` brings
        `validation/`), so a driver's helper modules and a mockup's stylesheet come with it.
        """
        folder = Path(os.path.realpath(folder))
        if folder not in self._copies:
            copy = self._private_root() / str(self._made)
            self._made += 1
            copy.mkdir()
            self._copies[folder] = copy
        copy = self._copies[folder]
        self._users[folder] = self._users.get(folder, 0) + 1
        for top in sorted({Path(relative).parts[0] for relative in relatives if Path(relative).parts}):
            source = folder / top
            if top in (".", "..") or top in SKIPPED or (copy / top).exists() or not source.exists():
                continue
            self.tops.add(str(source))
            for path in _files(source):
                dest = copy / path.relative_to(folder)
                dest.parent.mkdir(parents=True, exist_ok=True)
                digest = _copy_hashing(path, dest)
                if self.digests.setdefault(str(path), digest) != digest:  # copied again, after builds ran
                    raise SuiteChanged(f"{SUITE_CHANGED}: {path} is not what it was when first copied")
        return copy

    def release(self, folder: Path) -> None:
        """One run no longer needs `folder`'s copy: the last one removes it."""
        folder = Path(os.path.realpath(folder))
        self._users[folder] = self._users.get(folder, 1) - 1
        if self._users[folder] <= 0 and folder in self._copies:
            del self._users[folder]
            shutil.rmtree(self._copies.pop(folder), ignore_errors=True)

    @property
    def root(self) -> Path:
        """The private folder (mode 0700) that holds every copy of the session."""
        return self._private_root()

    def _private_root(self) -> Path:
        if self._root is None:
            self._root = Path(tempfile.mkdtemp(prefix="tcab-reporter-"))  # mode 0700
        return self._root

    def remove(self) -> None:
        if self._root is not None:
            shutil.rmtree(self._root, ignore_errors=True)


def changes(digests: dict[str, str], tops: Iterable[str]) -> list[str]:
    """What differs between the suite on disk and the digests taken of it, one line per file."""
    found = []
    for name, digest in sorted(digests.items()):
        path = Path(name)
        if not path.is_file():
            found.append(f"removed: {name}")
        elif _sha256(path) != digest:
            found.append(f"changed: {name}")
    for top in sorted(tops):
        found += [f"added: {path}" for path in _files(Path(top)) if str(path) not in digests]
    return found


def _files(source: Path) -> Iterator[Path]:
    """Regular files at or under `source` (a symlinked file counts, a symlinked folder does not)."""
    if source.is_file():
        yield source
        return
    for dirpath, dirnames, filenames in os.walk(source):
        dirnames[:] = sorted(name for name in dirnames if name not in SKIPPED)
        for name in sorted(filenames):
            path = Path(dirpath) / name
            if path.is_file():
                yield path


def _copy_hashing(source: Path, dest: Path) -> str:
    digest = hashlib.sha256()
    with source.open("rb") as reader, dest.open("wb") as writer:
        while chunk := reader.read(1 << 20):
            digest.update(chunk)
            writer.write(chunk)
    return digest.hexdigest()


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as reader:
        while chunk := reader.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


# -- the session plugin ----------------------------------------------------------------------

GUARD_NAME = "tcab-snapshot"
"""The guard's plugin name: how a session finds it (a module-level stash key would not survive
pytester's in-process runs, which import this module afresh)."""


class SnapshotGuard:
    """Registered in run mode: holds the snapshot, and fails the session when the suite changed.

    Under xdist each worker snapshots what it collected and hands its digests to the
    controller, which compares once every worker is done: no build is running any more then.
    """

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.snapshot = Snapshot()
        config.add_cleanup(self.snapshot.remove)
        self._digests: dict[str, str] = {}
        self._tops: set[str] = set()
        self._conflicts: list[str] = []
        self.changed: list[str] | None = None
        """What differs, once the session is over (None before, [] when nothing does)."""

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        handed = getattr(node, "workeroutput", {}).get(_WORKER_KEY)
        if handed:
            self._merge(handed["digests"], handed["tops"])

    def _merge(self, digests: dict[str, str], tops: Iterable[str]) -> None:
        for name, digest in digests.items():
            if self._digests.setdefault(name, digest) != digest:
                self._conflicts.append(f"changed: {name} (workers copied different contents)")
        self._tops.update(tops)

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        """Compare before results.json is written (its writer runs last), and fail the session."""
        workeroutput = getattr(self.config, "workeroutput", None)
        if workeroutput is not None:
            workeroutput[_WORKER_KEY] = {"digests": self.snapshot.digests, "tops": sorted(self.snapshot.tops)}
            return
        self._merge(self.snapshot.digests, self.snapshot.tops)
        self.changed = sorted(set(self._conflicts + changes(self._digests, self._tops)))
        if self.changed and session.exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED):
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    @pytest.hookimpl(trylast=True)
    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        """Last, just above the final counts line: the one failure no item carries."""
        if not self.changed:
            return
        terminalreporter.section(f"tcab: {SUITE_CHANGED}", sep="!", red=True, bold=True)
        terminalreporter.write_line(f"FAILED: {SUITE_CHANGED}; the verdicts were decided on the copy taken before "
                                    "the first build step, but the suite on disk is no longer that copy:", red=True)
        for line in self.changed:
            terminalreporter.write_line(f"  {line}")


def register(config: pytest.Config) -> SnapshotGuard:
    """The session's guard, registered as a plugin on first use.

    `pytest_configure` registers it in every run-mode session, so that an xdist controller,
    which collects nothing, is there to receive the workers' digests.
    """
    guard: SnapshotGuard | None = config.pluginmanager.get_plugin(GUARD_NAME)
    if guard is None:
        guard = SnapshotGuard(config)
        config.pluginmanager.register(guard, GUARD_NAME)
    return guard


def reporter_copy(config: pytest.Config, folder: Path, relatives: Iterable[str]) -> Path:
    """The private copy of the reporter-side material under `folder` (see :meth:`Snapshot.copy`)."""
    return register(config).snapshot.copy(folder, relatives)


def release_copy(config: pytest.Config, folder: Path) -> None:
    """A run let go of its copy of `folder`'s material (see :meth:`Snapshot.release`)."""
    register(config).snapshot.release(folder)


def suite_changes(config: pytest.Config) -> list[str] | None:
    """What the session found changed in the suite; None when it did not check."""
    guard: SnapshotGuard | None = config.pluginmanager.get_plugin(GUARD_NAME)
    return guard.changed if guard is not None else None
