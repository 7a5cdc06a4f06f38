"""Steps beside the build: a run's toolchain steps start once its install passed, while the build
step runs, and their items take the results at their turn.

The toolchain reads the sources and the installed dependencies, not the build's output, so it
need not wait for the build. Each step runs in a copy of its own of the workdir taken after the
install (on the run's disk, under its cap), in its own sandbox with a build step's caps: it can
change nothing the build reads or serves, and the build nothing it reads. Only the steps a
selected item needs start (`-k`, `--lf`, deselection), and the judge runtime is started meanwhile
when a selected item of the run drives a script.

An early result stands when it is the step's alone: it passed, or it reached a cap that is its
own (its processes, its memory, its time). Any other failure is told by running the step again
at its turn, after the build, in a copy of the built workdir, as it would have run without early
steps: an exit status may come from a file of the build's output it looked for, and a full disk
from the build that wrote beside it (the disk is the run's, shared). So an item reports what it
reports without them. A build that fails makes its toolchain items "not run" (`require_build`):
what ran beside it is ended and discarded.
"""

from __future__ import annotations

import threading
from concurrent.futures import Future
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Protocol

import pytest

from pytest_tcab.run.host import cores
from pytest_tcab.run.sandbox.sandbox import session_sandbox
from pytest_tcab.run.sandbox.steps import AfterInstall
from pytest_tcab.run.sandbox.steps import CommandResult
from pytest_tcab.run.sandbox.steps import StoodDown
from pytest_tcab.run.sandbox.steps import build_environment
from pytest_tcab.run.sandbox.steps import cap_failure
from pytest_tcab.run.sandbox.steps import copy_workdir
from pytest_tcab.run.sandbox.steps import past_cap
from pytest_tcab.run.sandbox.steps import remove_workdir
from pytest_tcab.run.sandbox.steps import run_command

if TYPE_CHECKING:
    from pytest_tcab.run.sandbox.disk import RunDisk


class BuildingRun(Protocol):
    """What a step beside the build reads of its run (a `RunContext`, whose module imports this one)."""

    config: pytest.Config
    label: str

    @property
    def disk(self) -> RunDisk: ...


BESIDE_WORKERS = cores()
"""How many toolchain steps run beside the build step at once: one per core. Their items come
before the browser items, so the browser waits for the slowest of them. On the 2-core host two
beside the build (three tsc at once) graded carom-e2e in 39 s where one at a time took 52 s (each
step a little slower, none waited for). 0 starts none early: every step runs at its turn."""


@dataclass(frozen=True)
class StepOutcome:
    """A toolchain step as run: its result and, when it filled a disk or reached its process cap,
    `cap_failure`'s (message, not graded)."""

    result: CommandResult
    failed: tuple[str, bool] | None
    disk_full: bool
    """Whether a disk (the run's or the machine's) was full when the step ended."""

    @property
    def final(self) -> bool:
        """Whether the result, got beside the build, is the one the step has at its turn: it passed,
        or it reached a cap that is its own; never when a disk was full (the build shares it)."""
        if self.disk_full:
            return False
        return self.result.ok or self.result.timed_out or self.failed is not None or bool(past_cap(self.result))


class StepsBeside:
    """One run's toolchain steps started beside its build step, each a future of its outcome."""

    def __init__(self, run: BuildingRun, steps: dict[str, str]) -> None:
        self._run = run
        self._steps = steps
        self._cancel = threading.Event()
        self._lock = threading.Lock()
        self._futures: dict[str, Future[StepOutcome]] = {}
        self._pool: ThreadPoolExecutor | None = None
        self._pristine: Path | None = None
        self._takers = len(steps)
        self._filled = False
        self._busy_s = 0.0

    def start(self, workdir: Path) -> StepsBeside:
        """Copy `workdir` as the install left it (before the build step changes it), then start
        each step in a copy of that. A copy that does not fit the disk starts none: they run at their turn."""
        try:
            self._pristine = copy_workdir(workdir)
        except OSError:
            return self
        self._pool = ThreadPoolExecutor(BESIDE_WORKERS, thread_name_prefix=f"tcab-beside-{self._run.label}")
        for key, command in self._steps.items():
            self._futures[key] = self._pool.submit(self._early, key, command)
        return self

    def _early(self, key: str, command: str) -> StepOutcome:
        with self._lock:  # the pristine copy is copied by one step at a time; the last takes it itself
            if self._cancel.is_set() or self._pristine is None:
                raise RuntimeError("ended before it started")
            self._takers -= 1
            if self._takers:
                copy = copy_workdir(self._pristine)
            else:
                copy, self._pristine = self._pristine, None
        outcome = run_in_copy(self._run, key, command, copy, self._cancel)
        with self._lock:
            self._filled = self._filled or outcome.disk_full
            self._busy_s += outcome.result.duration_s
        return outcome

    def take(self, key: str) -> StepOutcome | None:
        """The outcome of `key` run beside the build, once it ended, if it stands (else None: run
        it at its turn). Taken once: an item graded again (`run.attempts`) runs its step anew."""
        future = self._futures.pop(key, None)
        if future is None:
            return None
        try:
            outcome = future.result()
        except (OSError, RuntimeError):  # its copy did not fit, or it was ended: it runs at its turn
            return None
        return outcome if outcome.final else None

    def stand_down(self) -> StoodDown:
        """End every step (the running ones' process groups, the queued ones before they start),
        wait for them, drop their copies; whether a disk filled meanwhile, and how long they ran."""
        self._cancel.set()
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
        self._futures.clear()
        with self._lock:
            if self._pristine is not None:
                remove_workdir(self._pristine)
                self._pristine = None
            return StoodDown(self._filled, self._busy_s)


def run_in_copy(run: BuildingRun, key: str, command: str, copy: Path,
                cancel: threading.Event | None = None) -> StepOutcome:
    """Run toolchain step `key` in `copy` (a build step's sandbox, caps and timeout), tell how it
    ended, then remove the copy: its result is all a toolchain step leaves."""
    try:
        timeout = float(run.config.getoption("tcab_build_timeout"))
        result = run_command(command, copy, timeout, build_environment(), sandbox=session_sandbox(run.config),
                             step=key, disk=run.disk, cancel=cancel)
        disk_full = run.disk.full() or run.disk.host_out_of_room() is not None
        return StepOutcome(result, cap_failure(key, result, run.disk), disk_full)
    finally:
        remove_workdir(copy)


def beside_build(run: BuildingRun) -> AfterInstall | None:
    """`build_static`'s `after_install` for `run`: starts the toolchain steps its selected items
    need beside the build step, and the judge runtime when one drives a script; None when it
    needs neither (nothing then changes)."""
    steps = _wanted(run.config).get(run, {}) if BESIDE_WORKERS else {}
    judged = run in run.config.stash.get(_judged_key, set())
    if not steps and not judged:
        return None

    def after_install(workdir: Path) -> StepsBeside:
        if judged:
            from pytest_tcab.run.judge.runtime import session_judge

            session_judge(run.config).warm()
        beside = StepsBeside(run, dict(steps))
        _live(run.config)[run] = beside
        return beside.start(workdir) if steps else beside

    return after_install


def taken(run: BuildingRun, key: str) -> StepOutcome | None:
    """What step `key` of `run` gave beside its build, when it ran there and its result stands."""
    beside = _live(run.config).get(run)
    return None if beside is None else beside.take(key)


def end_beside(run: BuildingRun) -> None:
    """End and join whatever still runs beside `run`'s build (its release: a `-x` stop, Ctrl-C, its
    last item done), and drop the copies: no thread or sandboxed process outlives the run."""
    beside = _live(run.config).pop(run, None)
    if beside is not None:
        beside.stand_down()


def want(config: pytest.Config, steps: dict[BuildingRun, dict[str, str]], judged: set[BuildingRun]) -> None:
    """Note, per run, the toolchain steps (key: command) and the judge runs the session's selected
    items need: only those start beside a build."""
    wanted = _wanted(config)
    wanted.clear()
    wanted.update(steps)
    config.stash[_judged_key] = set(judged)


_wanted_key = pytest.StashKey[dict["BuildingRun", dict[str, str]]]()
_judged_key = pytest.StashKey[set["BuildingRun"]]()
_live_key = pytest.StashKey[dict["BuildingRun", StepsBeside]]()


def _wanted(config: pytest.Config) -> dict[BuildingRun, dict[str, str]]:
    return config.stash.setdefault(_wanted_key, {})


def _live(config: pytest.Config) -> dict[BuildingRun, StepsBeside]:
    return config.stash.setdefault(_live_key, {})
