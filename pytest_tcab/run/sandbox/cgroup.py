"""A memory cap on a step's whole process tree: a child of the grader's own memory cgroup.

An address-space limit refuses ordinary toolchains (V8 reserves about 10 GiB for every wasm
memory, Go reserves large arenas) and a per-process limit lets a step fork its way past it; a
cgroup counts what the whole tree really uses. Where the host lets the grader make one (cgroup
v2 `memory.max` with the memory controller open to children, or cgroup v1's memory hierarchy,
`memory.limit_in_bytes`), each step gets its own: it joins it before exec, so bwrap and every
descendant are in it, and it is removed after the step. Elsewhere :mod:`sandbox` falls back
to RLIMIT_DATA per process.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

REMOVE_S = 1.0
"""How long removing a step's cgroup is retried: the kernel frees an emptied cgroup lazily."""

JOIN = 'echo $$ > "$1" && shift && exec "$@"'
"""The step's first process writes its pid to the cgroup's `cgroup.procs`, then execs the step."""

_names = itertools.count()


@dataclass(frozen=True)
class CgroupParent:
    """The cgroup under which steps get cgroups of their own, and which interface it speaks."""

    path: Path
    version: int
    """2 (unified: `memory.max`, `memory.events`) or 1 (`memory.limit_in_bytes`, `memory.oom_control`)."""

    @property
    def limit_file(self) -> str:
        return "memory.max" if self.version == 2 else "memory.limit_in_bytes"

    def create(self, memory_bytes: int) -> StepCgroup:
        """A fresh cgroup capped at `memory_bytes`, swap included where the host has swap to give."""
        path = self.path / f"tcab-{os.getpid()}-{next(_names)}"
        path.mkdir()
        group = StepCgroup(path, self.version)
        try:
            (path / self.limit_file).write_text(str(memory_bytes))
            swap = "memory.swap.max" if self.version == 2 else "memory.memsw.limit_in_bytes"
            with contextlib.suppress(OSError):  # absent without swap accounting; swap then adds nothing
                (path / swap).write_text("0" if self.version == 2 else str(memory_bytes))
        except OSError:
            group.remove()
            raise
        return group


@dataclass(frozen=True)
class StepCgroup:
    """One step's cgroup: the prefix that puts the step in it, what it saw, and its removal."""

    path: Path
    version: int

    def argv(self) -> list[str]:
        return ["/bin/sh", "-c", JOIN, "tcab-join", str(self.path / "cgroup.procs")]

    def oom_kills(self) -> int:
        """How many of the step's processes the kernel killed for passing the cap."""
        name = "memory.events" if self.version == 2 else "memory.oom_control"
        try:
            fields = dict(line.split() for line in (self.path / name).read_text().splitlines() if " " in line)
        except OSError:
            return 0
        if "oom_kill" in fields:
            return int(fields["oom_kill"])
        return int((self.path / "memory.failcnt").read_text()) if self.version == 1 else 0  # kernels before 4.13

    def remove(self) -> None:
        """Remove the cgroup, ending what is still in it (a process the step left behind)."""
        deadline = time.monotonic() + REMOVE_S
        while True:
            try:
                self.path.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError:
                if time.monotonic() > deadline:
                    return  # left for the host: an empty cgroup holds no memory
                self._kill_members()
                time.sleep(0.02)

    def _kill_members(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            for pid in (self.path / "cgroup.procs").read_text().split():
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(int(pid), signal.SIGKILL)


def find_parent() -> CgroupParent | None:
    """The cgroup steps are made under, or None where the host lets the grader make none.

    Probed for real, once per session: a capped child is made and a process joins it.
    """
    for candidate in _candidates():
        if _works(candidate):
            return candidate
    return None


def _candidates() -> list[CgroupParent]:
    try:
        memberships = Path("/proc/self/cgroup").read_text().splitlines()
        mounts = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return []
    found: list[CgroupParent] = []
    for line in memberships:
        hierarchy, controllers, own = line.split(":", 2)
        version = 2 if hierarchy == "0" and controllers == "" else 1
        if version == 1 and "memory" not in controllers.split(","):
            continue
        for mount in mounts:
            fields = mount.split()
            fs, options = fields[fields.index("-") + 1], fields[-1].split(",")
            if (fs, version) == ("cgroup2", 2) or (fs == "cgroup" and version == 1 and "memory" in options):
                root, point = fields[3], fields[4]
                if own == root or own.startswith(root.rstrip("/") + "/"):
                    found.append(CgroupParent(Path(point) / own[len(root):].lstrip("/"), version))
                break
    return sorted(found, key=lambda parent: -parent.version)  # v2 first, on a hybrid host


def _works(parent: CgroupParent) -> bool:
    if parent.version == 2:
        try:
            if "memory" not in (parent.path / "cgroup.controllers").read_text().split():
                return False  # a hybrid host's unified hierarchy: the controller is bound to v1
        except OSError:
            return False
        with contextlib.suppress(OSError):  # open the memory controller to children, where we may
            if "memory" not in (parent.path / "cgroup.subtree_control").read_text().split():
                (parent.path / "cgroup.subtree_control").write_text("+memory")
    try:
        group = parent.create(64 * 2**20)
    except OSError:
        return False
    try:
        done = subprocess.run([*group.argv(), "true"], check=False, capture_output=True, timeout=10)
        return done.returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False
    finally:
        group.remove()
