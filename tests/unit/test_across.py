"""The scheduler of builds begun across runs (`run.across`): which runs it starts, when, how many,
and that it stops; and `EarlyBuild`, the thread a build begun early runs in."""

from __future__ import annotations

import threading
import time
from typing import Any
from typing import cast

import pytest

from pytest_tcab.run.across import AcrossRuns
from pytest_tcab.run.across import default_concurrency
from pytest_tcab.run.context import EarlyBuild
from pytest_tcab.run.context import RunContext


class FakeRun:
    """A run as the scheduler sees it: whether its build is done, and what start_build answers."""

    def __init__(self, name: str, startable: bool = True) -> None:
        self.name = name
        self.startable = startable
        self.finished_build: object | None = None
        self.started_with: tuple[Any, ...] | None = None
        self.ended = False

    def start_build(self, before: tuple[Any, ...] = ()) -> bool:
        if self.startable:
            self.started_with = before
        return self.startable

    def end_build(self) -> None:
        self.ended = True

    def __repr__(self) -> str:
        return self.name


def across(limit: int, *runs: FakeRun) -> AcrossRuns:
    return AcrossRuns(limit, cast(list[RunContext], list(runs)))


def test_nothing_begins_until_the_current_run_has_built() -> None:
    first, second = FakeRun("first"), FakeRun("second")
    scheduler = across(2, first, second)
    assert scheduler.advance(cast(RunContext, first)) == [], "its build item is still to come"
    first.finished_build = object()
    assert scheduler.advance(cast(RunContext, first)) == [second]
    assert second.started_with == (first,), "told which runs are ahead of it (a shared build's digest)"
    assert scheduler.advance(cast(RunContext, first)) == [], "once"


def test_at_most_limit_runs_build_or_grade_at_once() -> None:
    runs = [FakeRun(f"run{index}") for index in range(5)]
    scheduler = across(3, *runs)
    runs[0].finished_build = object()
    assert scheduler.advance(cast(RunContext, runs[0])) == runs[1:3]
    scheduler.finished(cast(RunContext, runs[0]))
    runs[1].finished_build = object()
    assert scheduler.advance(cast(RunContext, runs[1])) == [runs[3]], "run1 grading, run2 and run3 building"


def test_a_run_that_cannot_begin_early_is_left_to_its_turn_and_the_next_is_tried() -> None:
    first, sharer, other = FakeRun("first"), FakeRun("sharer", startable=False), FakeRun("other")
    scheduler = across(2, first, sharer, other)
    first.finished_build = object()
    assert scheduler.advance(cast(RunContext, first)) == [other]


def test_limit_one_is_one_run_at_a_time() -> None:
    first, second = FakeRun("first"), FakeRun("second")
    first.finished_build = object()
    assert across(1, first, second).advance(cast(RunContext, first)) == []


def test_stop_ends_what_began_and_begins_nothing_more() -> None:
    runs = [FakeRun(f"run{index}") for index in range(3)]
    scheduler = across(2, *runs)
    runs[0].finished_build = object()
    scheduler.advance(cast(RunContext, runs[0]))
    scheduler.stop()
    assert runs[1].ended and not runs[2].ended
    runs[1].finished_build = object()
    assert scheduler.advance(cast(RunContext, runs[1])) == []


def test_the_default_is_bounded_by_the_memory_at_the_build_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("pytest_tcab.run.across.available_memory", lambda: 3 * 2**30)
    assert default_concurrency(2**30) <= 3
    assert default_concurrency(4 * 2**30) == 1, "never below one run"


def test_an_early_build_raises_where_it_is_waited_for_and_ends_when_told() -> None:
    def broken(cancel: threading.Event) -> None:
        raise OSError("no room")

    with pytest.raises(OSError, match="no room"):
        EarlyBuild(broken).wait()

    def sleeper(cancel: threading.Event) -> None:
        cancel.wait(60)

    started = time.monotonic()
    early = EarlyBuild(sleeper)
    early.end()
    assert time.monotonic() - started < 30
    assert not any(thread.name == "tcab-early-build" and thread.is_alive() for thread in threading.enumerate())
