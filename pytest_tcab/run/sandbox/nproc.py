"""A step's processes counted from outside its sandbox, where only RLIMIT_NPROC caps them.

RLIMIT_NPROC keeps no count of the forks it refuses (a pids cgroup's `pids.events` does), so a
build that retries its refused forks in silence would run until its timeout, at its cap all the
while. The step's PID namespace holds every process and thread of its user namespace (bwrap makes
both, and every orphan is reparented inside), which is what RLIMIT_NPROC counts: a step whose
namespace has sat at the cap for :data:`HELD_S` has every fork it tries refused, and is ended.
The count is read from the grader's side, where nothing the build runs can reach or fake it.
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path

HELD_S = 2.0
"""How long a step's processes may sit at its cap before it is ended: long enough that a build
whose tasks come and go near the cap is not ended for a moment there, short against any timeout."""
SCAN_S = 0.25
"""How often the step's namespace is counted (a scan reads each host process's namespace link)."""
SLACK = 2
"""Tasks below the cap that still count as at it: a task that just exited and one being made."""


class ProcessWatch:
    """The count of one step's tasks against its cap, from the step's first process (`watch`) on."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self._root: int | None = None
        self._namespace: str | None = None
        self._scanned = float("-inf")
        self._full_since: float | None = None
        self.held_s: float | None = None
        """How long the step had sat at its cap when it was found to (once, then it stays)."""
        self.most = 0
        """The most tasks one scan found."""

    def watch(self, pid: int) -> None:
        """Count the sandbox whose bwrap is `pid` (the step's first process: every prefix execs)."""
        self._root = pid

    def held(self) -> bool:
        """Whether the step's tasks have sat at its cap for :data:`HELD_S` (scanned at most every :data:`SCAN_S`)."""
        if self.held_s is not None:
            return True
        now = time.monotonic()
        if self._root is None or now - self._scanned < SCAN_S:
            return False
        self._scanned = now
        count = self.count()
        self.most = max(self.most, count or 0)
        if count is None or count < self.cap - SLACK:
            self._full_since = None
            return False
        if self._full_since is None:
            self._full_since = now
        if now - self._full_since >= HELD_S:
            self.held_s = round(now - self._full_since, 1)
        return self.held_s is not None

    def count(self) -> int | None:
        """The tasks (processes and threads) in the step's PID namespace; None before bwrap made it."""
        namespace = self._namespace or self._find_namespace()
        if namespace is None:
            return None
        total = 0
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            with contextlib.suppress(OSError):  # gone, or not ours to read
                if os.readlink(f"/proc/{entry}/ns/pid") == namespace:
                    total += len(os.listdir(f"/proc/{entry}/task"))
        return total

    def _find_namespace(self) -> str | None:
        """The PID namespace of bwrap's child (bwrap itself stays in the grader's)."""
        assert self._root is not None
        try:
            own = os.readlink(f"/proc/{self._root}/ns/pid")
            children = Path(f"/proc/{self._root}/task/{self._root}/children").read_text().split()
        except OSError:
            return None
        for child in children:
            with contextlib.suppress(OSError):
                namespace = os.readlink(f"/proc/{child}/ns/pid")
                if namespace != own:
                    self._namespace = namespace
                    return namespace
        return None
