"""Builds started across runs (`--tcab-concurrency=N`): while a run's browser and judge items run,
the next runs of the session begin their builds, up to N runs building or grading at once.

A run's items run one after the other and mostly wait (for pages to settle, clips, the judge),
so the next run's build may use the processor meanwhile. Which runs, in the session's item
order: those with a selected item that needs the build (`NOT_BUILT_KINDS` need none); a run
that will take a shared build, or whose disk cap the live runs would lower, is left to build at
its turn (`RunContext.start_build`). Nothing else changes: each run's items run in their place,
and a build started early is waited for, and its failure reported, by that run's own `build`
item. Under `-x` (or `--maxfail`) no build starts once the session is told to stop, and those
started end at once.

Under pytest-xdist it is off: a worker knows only the items it has been sent so far, so it
cannot tell which run comes next. xdist is the way to use more machines (or cores) at once;
`--tcab-concurrency` keeps one process's machine busy while its runs wait.

No verdict depends on it, so `graded_with` does not record it: an early build has the caps,
disk share, sandbox and timeouts a build at its turn has (a cap the live runs would lower is
not started early), and what it may take of the processor from the run being graded is what a
neighbouring xdist worker's build may take, at the lowest CPU priority besides.
"""

from __future__ import annotations

from collections.abc import Generator
from collections.abc import Sequence
from typing import Any

import pytest

from pytest_tcab.run.context import RunContext
from pytest_tcab.run.host import available_memory
from pytest_tcab.run.host import cores
from pytest_tcab.run.item import RunItem

NOT_BUILT_KINDS = frozenset({"proof", "review", "asset"})
"""Run items that never read the build: a proof is a file of the produced tree, a review the
operator's, an asset run builds nothing."""


def default_concurrency(build_memory: int) -> int:
    """The cores this process may use, but no more runs than the memory there is holds at the
    build memory cap each (`--tcab-build-memory`); at least 1."""
    return max(1, min(cores(), available_memory() // max(1, build_memory)))


def concurrency(config: pytest.Config) -> int:
    """The runs that may build or grade at once in this process: 1 under xdist (see the module)."""
    if hasattr(config, "workerinput"):
        return 1
    asked = config.getoption("tcab_concurrency", None)
    return int(asked) if asked else default_concurrency(int(config.getoption("tcab_build_memory")))


class AcrossRuns:
    """The session's runs that need their build, in item order, and which have begun it early."""

    def __init__(self, limit: int, order: Sequence[RunContext]) -> None:
        self.limit = limit
        self.order = list(order)
        self._places = {id(run): place for place, run in enumerate(self.order)}
        self._untried = 0
        """The place of the first run not yet asked to begin early: each is asked once."""
        self.started: list[RunContext] = []
        """Runs whose build `advance` began, until they are let go."""
        self.stopped = False

    def advance(self, current: RunContext) -> list[RunContext]:
        """Called as an item of `current` starts: once its build is done, begin the builds of the
        runs after it, until `limit` runs (`current` one of them) build or grade; those begun."""
        at = self._places.get(id(current))
        if self.stopped or current.finished_build is None or at is None:
            return []
        begun = []
        self._untried = max(self._untried, at + 1)
        while self._untried < len(self.order) and self._at_once(current) < self.limit:
            run = self.order[self._untried]
            if run.start_build(tuple(self.order[:self._untried])):
                self.started.append(run)
                begun.append(run)
            self._untried += 1
        return begun

    def _at_once(self, current: RunContext) -> int:
        """The runs building or grading now: `current`, and those begun early and not yet let go."""
        return 1 + sum(run is not current for run in self.started)

    def finished(self, run: RunContext) -> None:
        if run in self.started:
            self.started.remove(run)

    def stop(self) -> None:
        """Start no more builds, and end those begun that no item has taken."""
        self.stopped = True
        for run in self.started:
            run.end_build()
        self.started.clear()


_key = pytest.StashKey[AcrossRuns]()


def runs_needing_builds(items: Sequence[pytest.Item]) -> list[RunContext]:
    """The runs with a selected item that reads their static build, in the order their items run."""
    order: dict[int, RunContext] = {}
    for item in items:
        if isinstance(item, RunItem) and item.kind not in NOT_BUILT_KINDS and item.run.builds_static:
            order.setdefault(id(item.run), item.run)
    return list(order.values())


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    limit = concurrency(session.config)
    if limit > 1:
        session.config.stash[_key] = AcrossRuns(limit, runs_needing_builds(session.items))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None, Any, Any]:
    across = item.config.stash.get(_key, None)
    if across is not None and isinstance(item, RunItem):
        if item.session.shouldstop or item.session.shouldfail:
            across.stop()
        else:
            across.advance(item.run)
    result = yield
    if across is not None and (item.session.shouldstop or item.session.shouldfail):
        across.stop()
    return result


def pytest_tcab_run_finished(config: pytest.Config, run: RunContext) -> None:
    across = config.stash.get(_key, None)
    if across is not None:
        across.finished(run)


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Ctrl-C or the session's end: no build begun early outlives it (each run's release ends its own too)."""
    across = session.config.stash.get(_key, None)
    if across is not None:
        across.stop()
