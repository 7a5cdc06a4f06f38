"""Memory and process caps on a step's whole process tree: children of the grader's own cgroups.

An address-space limit refuses ordinary toolchains (V8 reserves about 10 GiB for every wasm
memory, Go reserves large arenas) and a per-process limit lets a step fork its way past it; a
cgroup counts what the whole tree really uses. Where the host lets the grader make one (cgroup
v2 `memory.max` with the memory controller open to children, or cgroup v1's memory hierarchy,
`memory.limit_in_bytes`), each step gets its own: it joins it before exec, so bwrap and every
descendant are in it, and it is removed after the step. Elsewhere :mod:`sandbox` falls back
to RLIMIT_DATA per process. Processes likewise: the `pids` controller's `pids.max` (v2, or v1's
pids hierarchy) counts every task of the tree, threads too, however it forks or reparents;
elsewhere :mod:`sandbox` falls back to RLIMIT_NPROC inside the step's user namespace.
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

JOIN = 'n=$1; shift; while [ "$n" -gt 0 ]; do echo $$ > "$1" || exit 125; shift; n=$((n - 1)); done; exec "$@"'
"""The step's first process writes its pid to each of its cgroups' `cgroup.procs` (one on v2; the
memory and the pids hierarchies' on v1), then execs the step."""

_names = itertools.count()


@dataclass(frozen=True)
class CgroupParent:
    """A cgroup under which steps get cgroups of their own, for one controller, and which interface it speaks."""

    path: Path
    version: int
    """2 (unified: `memory.max`, `memory.events`, `pids.max`) or 1 (`memory.limit_in_bytes`,
    `memory.oom_control`, `pids.max`)."""
    controller: str = "memory"
    """`memory` or `pids`: what the steps' cgroups under it cap."""

    @property
    def limit_file(self) -> str:
        if self.controller == "pids":
            return "pids.max"
        return "memory.max" if self.version == 2 else "memory.limit_in_bytes"

    def create(self, limit: int) -> StepCgroup:
        """A fresh cgroup capped at `limit` (bytes of memory, swap included where the host has swap
        to give, or processes)."""
        return create_step({self: limit})


def create_step(limits: dict[CgroupParent, int]) -> StepCgroup:
    """One step's cgroups, capped at each parent's limit: one cgroup per hierarchy (on v2 the
    memory and pids parents are one folder, so the step has one cgroup with both limits)."""
    name = f"tcab-{os.getpid()}-{next(_names)}"
    paths = {parent: parent.path / name for parent in limits}
    group = StepCgroup(tuple(dict.fromkeys(paths.values())), {parent.controller: (paths[parent], parent.version)
                                                              for parent in limits})
    try:
        for path in group.paths:
            path.mkdir()
        for parent, limit in limits.items():
            (paths[parent] / parent.limit_file).write_text(str(limit))
            if parent.controller == "memory":
                swap = "memory.swap.max" if parent.version == 2 else "memory.memsw.limit_in_bytes"
                with contextlib.suppress(OSError):  # absent without swap accounting; swap then adds nothing
                    (paths[parent] / swap).write_text("0" if parent.version == 2 else str(limit))
    except OSError:
        group.remove()
        raise
    return group


@dataclass(frozen=True)
class StepCgroup:
    """One step's cgroups: the prefix that puts the step in them, what they saw, and their removal."""

    paths: tuple[Path, ...]
    controllers: dict[str, tuple[Path, int]]
    """Each controller's cgroup of the step and its version: `{"memory": (path, 1), "pids": (path, 1)}`."""

    def argv(self) -> list[str]:
        procs = [str(path / "cgroup.procs") for path in self.paths]
        return ["/bin/sh", "-c", JOIN, "tcab-join", str(len(procs)), *procs]

    def oom_kills(self) -> int:
        """How many of the step's processes the kernel killed for passing the memory cap."""
        if "memory" not in self.controllers:
            return 0
        path, version = self.controllers["memory"]
        name = "memory.events" if version == 2 else "memory.oom_control"
        fields = _fields(path / name)
        if "oom_kill" in fields:
            return fields["oom_kill"]
        if version == 1:  # kernels before 4.13
            with contextlib.suppress(OSError, ValueError):
                return int((path / "memory.failcnt").read_text())
        return 0

    def forks_refused(self) -> int:
        """How many forks (and thread starts) of the step the kernel refused at its process cap."""
        if "pids" not in self.controllers:
            return 0
        return _fields(self.controllers["pids"][0] / "pids.events").get("max", 0)

    def remove(self) -> None:
        """Remove the cgroups, ending what is still in them (a process the step left behind)."""
        for path in self.paths:
            _remove(path)


def _fields(path: Path) -> dict[str, int]:
    """A cgroup's `key value` lines, e.g. `memory.events`, `pids.events`; empty when unreadable."""
    try:
        lines = path.read_text().splitlines()
    except OSError:
        return {}
    found = {}
    for line in lines:
        key, _, value = line.partition(" ")
        with contextlib.suppress(ValueError):
            found[key] = int(value)
    return found


def _remove(path: Path) -> None:
    deadline = time.monotonic() + REMOVE_S
    while True:
        try:
            path.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            if time.monotonic() > deadline:
                return  # left for the host: an empty cgroup holds no memory
            _kill_members(path)
            time.sleep(0.02)


def _kill_members(path: Path) -> None:
    with contextlib.suppress(OSError, ValueError):
        for pid in (path / "cgroup.procs").read_text().split():
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(int(pid), signal.SIGKILL)


def find_parent(controller: str = "memory") -> CgroupParent | None:
    """The cgroup steps are made under for `controller` (`memory` or `pids`), or None where the
    host lets the grader make none.

    Probed for real, once per session: a capped child is made and a process joins it (for
    `pids`, under a cap of one process, and its one fork must be refused).
    """
    for candidate in _candidates(controller):
        if _works(candidate):
            return candidate
    return None


def _candidates(controller: str) -> list[CgroupParent]:
    try:
        memberships = Path("/proc/self/cgroup").read_text().splitlines()
        mounts = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return []
    found: list[CgroupParent] = []
    for line in memberships:
        hierarchy, controllers, own = line.split(":", 2)
        version = 2 if hierarchy == "0" and controllers == "" else 1
        if version == 1 and controller not in controllers.split(","):
            continue
        for mount in mounts:
            fields = mount.split()
            fs, options = fields[fields.index("-") + 1], fields[-1].split(",")
            if (fs, version) == ("cgroup2", 2) or (fs == "cgroup" and version == 1 and controller in options):
                root, point = fields[3], fields[4]
                if own == root or own.startswith(root.rstrip("/") + "/"):
                    found.append(CgroupParent(Path(point) / own[len(root):].lstrip("/"), version, controller))
                break
    return sorted(found, key=lambda parent: -parent.version)  # v2 first, on a hybrid host


def _works(parent: CgroupParent) -> bool:
    controller = parent.controller
    if parent.version == 2:
        try:
            if controller not in (parent.path / "cgroup.controllers").read_text().split():
                return False  # a hybrid host's unified hierarchy: the controller is bound to v1
        except OSError:
            return False
        with contextlib.suppress(OSError):  # open the controller to children, where we may
            if controller not in (parent.path / "cgroup.subtree_control").read_text().split():
                (parent.path / "cgroup.subtree_control").write_text(f"+{controller}")
    try:
        group = parent.create(64 * 2**20 if controller == "memory" else 1)
    except OSError:
        return False
    try:
        if controller == "memory":
            return subprocess.run([*group.argv(), "true"], check=False, capture_output=True, timeout=10).returncode == 0
        # Under a cap of one process the joined shell is that one: its fork must be refused.
        subprocess.run([*group.argv(), "/bin/sh", "-c", "/bin/true"], check=False, capture_output=True, timeout=10)
        return group.forks_refused() > 0
    except (OSError, subprocess.TimeoutExpired):
        return False
    finally:
        group.remove()
