"""The host's cores and memory, as every part that sizes its work by them counts them."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from pytest_tcab.run.host import available_memory
from pytest_tcab.run.host import cores


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="no CPU affinity on this platform")
def test_cores_are_those_the_process_may_run_on_not_the_machines() -> None:
    pin_then_count = ("import os; os.sched_setaffinity(0, {min(os.sched_getaffinity(0))}); "
                      "from pytest_tcab.run.host import cores; print(cores())")
    pinned = subprocess.run([sys.executable, "-c", pin_then_count], capture_output=True, text=True, check=True)
    assert pinned.stdout.strip() == "1"
    assert cores() == len(os.sched_getaffinity(0))


def test_available_memory_is_at_most_the_physical_memory() -> None:
    physical = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    assert 0 < available_memory() <= physical
