"""nproc: under RLIMIT_NPROC (no pids cgroup), a step whose processes sit at the cap is ended
promptly, naming the cap, however quietly it retries its refused forks."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_tcab.run.sandbox.nproc import HELD_S
from pytest_tcab.run.sandbox.sandbox import Caps
from pytest_tcab.run.sandbox.sandbox import Sandbox
from pytest_tcab.run.sandbox.steps import build_static

BY = "RLIMIT_NPROC as nobody" if os.geteuid() == 0 else "RLIMIT_NPROC"
"""The fallback this grader gets (root's steps run as nobody: RLIMIT_NPROC binds no root process)."""
CAP = 40
TIMEOUT_S = 240
QUIET_BOMB = ("exec 2>/dev/null; for i in $(seq 3000); do sleep 30.{tag} & done; wait; "
              "mkdir -p dist && echo built > dist/index.html")
"""A build that hides its refused forks: bash retries each one for about 15 s, and says nothing."""
NESTED_BOMB = ("exec 2>/dev/null; unshare --user --pid --fork --mount --mount-proc bash -c "
               "'for i in $(seq 3000); do sleep 30.{tag} & done; wait'; mkdir -p dist && echo built > dist/index.html")
"""The same from namespaces of its own nested in the step's, out of sight of a count by namespace."""

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None or (BY.endswith("nobody") and not shutil.which("setpriv")),
                                reason="RLIMIT_NPROC caps sandboxed steps only (needs bwrap, and setpriv as root)")


@pytest.fixture
def passable() -> Iterator[Path]:
    """A build folder another user can pass through (pytest's own is 0700), for steps run as nobody."""
    folder = Path(tempfile.mkdtemp(prefix="tcab-passable-", dir="/tmp"))
    folder.chmod(0o755)
    (folder / "impl").mkdir()
    (folder / "work").mkdir()
    (folder / "impl" / "index.html").write_text("<p>game</p>")
    try:
        yield folder
    finally:
        shutil.rmtree(folder)


def _capped() -> Sandbox:
    return Sandbox(shutil.which("bwrap"), "none", caps=Caps(2**31, TIMEOUT_S, None, CAP, BY))


def _sleeping(tag: int) -> int:
    """This host's processes still running the bomb's sleeps (its own tag: no other test's)."""
    count = 0
    for entry in os.listdir("/proc"):
        try:
            if entry.isdigit() and f"sleep\0{30}.{tag}\0".encode() in Path(f"/proc/{entry}/cmdline").read_bytes():
                count += 1
        except OSError:
            pass
    return count


@pytest.mark.parametrize("hidden", [QUIET_BOMB, NESTED_BOMB], ids=["quiet", "nested-namespaces"])
def test_a_build_hiding_its_refused_forks_ends_at_its_cap_not_its_timeout(passable: Path, hidden: str) -> None:
    tag = abs(hash(passable)) % 10**6
    bomb = hidden.format(tag=tag)
    started = time.monotonic()
    result = build_static(passable / "impl", "", bomb, passable / "work", TIMEOUT_S, _capped())
    took = time.monotonic() - started
    assert not result.ok
    assert result.message.startswith(f"build failed: `{bomb}` reached its process cap of {CAP} ("), result.message
    assert result.message.endswith(" s, every fork it tried refused"), result.message
    assert ": its processes sat at the cap for " in result.message, result.message
    figures = result.steps[0].figures()
    assert (figures["process_cap_by"], figures["over_process_cap"], figures["timed_out"]) == (BY, True, False)
    assert float(figures["held_at_process_cap_s"]) >= HELD_S  # type: ignore[arg-type]
    # Ended at its cap: a quarter of its timeout is room enough on a host loaded to twice its cores.
    assert took < TIMEOUT_S / 4, f"took {took:.0f} s"
    deadline = time.monotonic() + 10
    while _sleeping(tag) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _sleeping(tag), "every process it forked is gone with it"


def test_an_honest_build_using_most_of_its_cap_passes(passable: Path) -> None:
    """Tasks that come and go below the cap (a parallel build) are never taken for a step at it."""
    honest = f"for i in $(seq {CAP // 2}); do sleep 0.3 & done; wait; sleep {HELD_S + 1}; mkdir -p dist && cp index.html dist/"
    result = build_static(passable / "impl", "", honest, passable / "work", TIMEOUT_S, _capped())
    assert result.ok, result.message
    figures = result.steps[0].figures()
    assert (figures["process_cap_by"], figures["over_process_cap"]) == (BY, False)
    assert "held_at_process_cap_s" not in figures
