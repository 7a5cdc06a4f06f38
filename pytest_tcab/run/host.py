"""What the grading host offers this process: its cores and its memory, counted one way for every
part that sizes its work by them (steps beside a build, builds across runs)."""

from __future__ import annotations

import os


def cores() -> int:
    """The cores this process may run on (its CPU affinity: a cgroup's cpuset or `taskset` may give
    it fewer than the machine has), at least 1."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def available_memory() -> int:
    """What the host has available (MemAvailable), else all its physical memory."""
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
