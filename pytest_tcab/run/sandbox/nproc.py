"""A step's processes counted from outside its sandbox, where only RLIMIT_NPROC caps them.

RLIMIT_NPROC keeps no count of the forks it refuses (a pids cgroup's `pids.events` does), so a
build that retries its refused forks in silence would run until its timeout, at its cap all the
while. Every task under the step's bwrap is in the user namespace bwrap made (or one nested in it),
which is what RLIMIT_NPROC counts, and stays under it (bwrap's PID namespace reparents orphans to
its own init): a step whose tree has sat at the cap for :data:`HELD_S` has every fork it tries
refused, and is ended. The count is read from the grader's side, where nothing the build runs can
reach or fake it.
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
"""How often the step's tree is counted (each count reads two files a task)."""
SLACK = 2
"""Tasks below the cap that still count as at it: a task that just exited and one being made."""


class ProcessWatch:
    """The count of one step's tasks against its cap, from the step's first process (`watch`) on."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self._root: int | None = None
        self._scanned = float("-inf")
        self._full_since: float | None = None
        self.held_s: float | None = None
        """How long the step had sat at its cap when it was found to (once, then it stays)."""

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
        if count is None or count < self.cap - SLACK:
            self._full_since = None
            return False
        if self._full_since is None:
            self._full_since = now
        if now - self._full_since >= HELD_S:
            self.held_s = round(now - self._full_since, 1)
        return self.held_s is not None

    def count(self) -> int | None:
        """The tasks (processes and threads) under the step's bwrap, itself left out: every one of its
        namespaces' (a namespace the build nests is counted by RLIMIT_NPROC too, and orphans are
        reparented inside); None once bwrap is gone."""
        assert self._root is not None
        total, stack = -1, [self._root]
        while stack:
            pid = stack.pop()
            try:
                tasks = os.listdir(f"/proc/{pid}/task")
            except OSError:
                continue  # gone meanwhile
            total += len(tasks)
            for task in tasks:
                with contextlib.suppress(OSError, ValueError):
                    stack.extend(int(child) for child in Path(f"/proc/{pid}/task/{task}/children").read_text().split())
        return total if total >= 0 else None
