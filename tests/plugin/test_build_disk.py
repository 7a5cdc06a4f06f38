"""A build's disk is capped (`--tcab-build-disk`): a build that writes without end fails its own
run, naming the cap, and the next run is graded as if it had never been; the grading machine's
own disk running out stays "not graded". Real processes, on a small tmpfs as the sweep's scratch."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest
from beside_honest import grade
from beside_honest import outcomes
from beside_honest import results
from beside_honest import sweep
from test_definition_runs import PASSING_TYPECHECK

from pytest_tcab.run.sandbox import disk as disk_module
from pytest_tcab.run.sandbox.disk import MIN_DISK_BYTES
from pytest_tcab.run.sandbox.disk import RunDisk
from pytest_tcab.run.sandbox.disk import make_disk
from pytest_tcab.run.sandbox.sandbox import Sandbox
from pytest_tcab.run.sandbox.steps import run_command

BUILD = "if [ -f fill.sh ]; then bash fill.sh; fi; mkdir -p dist && cp index.html dist/"
"""The case's build: a run's own `fill.sh` first, where it has one (what a produced build may do)."""
FILL = "dd if=/dev/zero of=fill bs=1M status=none; true\n"
"""Writes until the disk refuses, then builds as usual."""


@pytest.fixture
def small_scratch(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A 256 MiB tmpfs as the sweep's scratch (TMPDIR), unmounted afterwards."""
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs as the sweep's scratch needs root")
    scratch = Path(tempfile.mkdtemp(prefix="disk-", dir="/tmp"))  # short: Chromium's sockets live under it
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256m", "tmpfs", str(scratch)], check=False,
                          capture_output=True, text=True)
    if done.returncode != 0:
        scratch.rmdir()
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    monkeypatch.setenv("TMPDIR", str(scratch))
    yield scratch
    subprocess.run(["umount", "-l", str(scratch)], check=False)
    shutil.rmtree(scratch, ignore_errors=True)


def test_a_build_that_fills_its_disk_fails_alone_and_the_next_run_passes_as_alone(
        pytester: pytest.Pytester, small_scratch: Path) -> None:
    alone = pytester.mkdir("alone")
    grade(pytester, alone, *sweep(alone, build=BUILD, typecheck=PASSING_TYPECHECK))
    shared = pytester.mkdir("shared")
    done = grade(pytester, shared, "--tcab-build-disk=64MiB", *sweep(shared, build=BUILD, typecheck=PASSING_TYPECHECK, hostile="fill",
                                          scripts={"fill.sh": FILL}))
    found = outcomes(shared)
    assert found["fill"]["not_graded"] == [], found["fill"]
    assert found["fill"]["items"]["build"] == "failed", found["fill"]["items"]
    done.stdout.fnmatch_lines([("*build failed: `*` went past its disk cap of 64 MiB (it wrote 6* MiB into its build "
                                "folder, *; --tcab-build-disk)*")])
    assert found["honest"] == outcomes(alone)["honest"]
    assert "failed" not in found["honest"]["items"].values()
    assert not list(small_scratch.glob("tcab-run-*")), "what the filler wrote is gone"


def test_a_cap_above_the_room_left_is_lowered_to_it_and_the_filler_fails_alone(pytester: pytest.Pytester,
                                                                             small_scratch: Path) -> None:
    """The default 4 GiB cap on a 256 MiB scratch: the run is given what the scratch has (less the
    grader's margin), so the filler fills its own disk and fails naming the cap it was given, never
    "not graded"; what it wrote goes, and the next run passes as alone."""
    alone = pytester.mkdir("alone")
    grade(pytester, alone, *sweep(alone, build=BUILD, typecheck=PASSING_TYPECHECK))
    shared = pytester.mkdir("shared")
    done = grade(pytester, shared, *sweep(shared, build=BUILD, typecheck=PASSING_TYPECHECK, hostile="fill",
                                          scripts={"fill.sh": FILL}))
    found = outcomes(shared)
    assert found["fill"]["not_graded"] == [], found["fill"]
    assert found["fill"]["items"]["build"] == "failed", found["fill"]["items"]
    done.stdout.fnmatch_lines([(f"*build failed: `*` went past its disk cap of 1?? MiB, lowered from 4096 MiB to the "
                                f"room {small_scratch} had free at the run's start (it wrote 1?? MiB into its build "
                                "folder, *; --tcab-build-disk)*"),
                               "*disk cap: 1?? MiB, lowered from 4096 MiB (--tcab-build-disk) to the room the grading "
                               "machine had free at the run's start"])
    steps = next(item for item in results(shared)["fill"]["items"] if item["id"] == "build")["steps"]
    assert steps[-1]["disk_cap_asked"] == 4 * 2**30 and steps[-1]["disk_cap"] < 256 * 2**20 - MIN_DISK_BYTES
    assert found["honest"] == outcomes(alone)["honest"]
    assert "failed" not in found["honest"]["items"].values(), found["honest"]
    assert not list(small_scratch.glob("tcab-run-*")), "what the filler wrote is gone"


@pytest.mark.parametrize("by", ["loop", "watchdog"])
def test_runs_starting_at_once_share_the_room(small_scratch: Path, by: str) -> None:
    """Two xdist workers' runs starting together: each counts the other's promise (an image's
    unwritten part, a watchdog's unused cap), so both caps together fit the scratch with the
    grader's margin left."""
    config = SimpleNamespace(getoption=lambda name: 4 * 2**30, stash=pytest.Stash(), workerinput={"workercount": 2})
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(tempfile, "tempdir", str(small_scratch))  # this process read TMPDIR long before
        if by == "watchdog":
            patch.setattr(disk_module, "_may_mount", lambda: False)  # as an ordinary user
        disks = [make_disk(config), make_disk(config)]  # type: ignore[arg-type]
    try:
        assert [disk.by for disk in disks] == [by, by]
        assert all(disk.asked == 4 * 2**30 and disk.cap >= MIN_DISK_BYTES for disk in disks), disks
        taken = sum(disk.image.stat().st_size if disk.image is not None else disk.cap for disk in disks)
        assert taken + MIN_DISK_BYTES <= 256 * 2**20, [disk.cap for disk in disks]
        if by == "loop":  # each writes its disk full: neither runs the grading machine out of room
            for disk in disks:
                subprocess.run(["dd", "if=/dev/zero", f"of={disk.path / 'fill'}", "bs=1M", "status=none"], check=False,
                               capture_output=True)
            assert [disk.host_out_of_room() for disk in disks] == [None, None]
            assert all(disk.past_cap() for disk in disks)
    finally:
        for disk in disks:
            disk.release()
    assert not list(small_scratch.glob("tcab-run-*")), "each took its promise with it"


def test_the_grading_machines_own_disk_running_out_stays_not_graded(pytester: pytest.Pytester,
                                                                    small_scratch: Path) -> None:
    """Nothing a build wrote: the scratch is full before the session starts."""
    args = sweep(pytester.path, build=BUILD, typecheck=PASSING_TYPECHECK)
    ballast = small_scratch / "ballast"
    # All but 1 MiB: with none left, Python's tempfile would pass the scratch by for /tmp.
    subprocess.run(["dd", "if=/dev/zero", f"of={ballast}", "bs=1M", "count=255", "status=none"], check=True)
    try:
        grade(pytester, pytester.path, *args)
    finally:
        ballast.unlink()
    found = outcomes(pytester.path)["honest"]
    assert found["not_graded"], found
    assert "ran out of disk" in found["not_graded"][0], found


def test_the_watchdog_ends_a_writer_past_the_cap_where_nothing_can_be_mounted(tmp_path: Path) -> None:
    disk = RunDisk(tmp_path / "run", 8 * 2**20, "watchdog")
    disk.path.mkdir()
    result = run_command("dd if=/dev/zero of=fill bs=64k status=none", disk.path, 60, sandbox=Sandbox(None, "none"),
                         disk=disk)
    assert not result.ok
    assert result.confinement["disk_cap_by"] == "watchdog"
    assert (disk.past_cap() or "").startswith("past its disk cap of 8 MiB (it wrote ")
    assert "a watchdog summing its folder" in (disk.past_cap() or "")
    disk.release()
    assert not disk.path.exists()
