"""How often a run item is graded in its session: again when it was not graded (`--tcab-retries`),
and K times over to find the verdicts that disagree with themselves (`--tcab-regrade`).

pytest's protocol runs an item once. Here a run item's setup, call and teardown are run again in
place, as pytest-rerunfailures runs them (`runtestprotocol`, each attempt torn down towards the
next item, so a retried last item of a session starts its browser anew): the node id, the item's
place in the session and its xdist worker stay, and only the last attempt's reports are logged,
so `-x`, `--maxfail`, `--lf`, the terminal and JUnit see one outcome per item. The earlier
attempts ride on those reports as figures (`attempts`, `gradings`), which results.json and JUnit
read. Every attempt starts from the item as it was collected (`RunItem.fresh_attempt`): a new
page, a new wasm instance, no figure or property of the attempt before; the run's build is the
one build, done once.

Only "not graded" is retried: what no produced code can cause (`outcomes.NotGraded`). A failed
build or verdict is the run's result, never an error to try again, so a build cannot have itself
graded until it passes; and what a page can do to its grading (crash, hang, close) is its
failure, never "not graded".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from pytest_tcab.bounded import bound
from pytest_tcab.failures import failure_text
from pytest_tcab.outcomes import NOT_GRADED_PROPERTY
from pytest_tcab.outcomes import STATUS_PROPERTY
from pytest_tcab.outcomes import UNSTABLE
from pytest_tcab.outcomes import outcome_of
from pytest_tcab.run.item import RunItem

REGRADED_KINDS = frozenset({"check", "validate", "requirement", "correctness", "fuel"})
"""The items `--tcab-regrade` grades K times: what a browser page, the judge or a wasm instance
decides. A build, proof, toolchain step or asset is measured once (the build is done once); a
tournament's matches feed its standings and are played once."""


@dataclass(frozen=True)
class Attempt:
    """One run of an item's setup, call and teardown, as its reports tell it."""

    reports: list[pytest.TestReport]
    duration_s: float

    @property
    def deciding(self) -> pytest.TestReport:
        """The report that says how the attempt ended: its first failed or skipped phase, else its call."""
        return next((report for report in self.reports if report.failed or report.skipped),
                    next((report for report in self.reports if report.when == "call"), self.reports[0]))

    @property
    def not_graded(self) -> str | None:
        """Why the grading broke, when it broke through no act of the produced code."""
        return next((str(value) for report in self.reports for name, value in report.user_properties
                     if name == NOT_GRADED_PROPERTY), None)

    @property
    def outcome(self) -> str:
        return outcome_of(self.deciding)

    def record(self, number: int, grading: int | None) -> dict[str, Any]:
        """The attempt as results.json keeps it."""
        entry: dict[str, Any] = {"attempt": number, **({"grading": grading} if grading else {}),
                                 "outcome": self.outcome, "phase": self.deciding.when,
                                 "duration_s": round(self.duration_s, 3)}
        if self.outcome != "passed":
            entry["message"] = reason_line(self.deciding)
        if self.not_graded is not None:
            entry["not_graded"] = self.not_graded
        return entry


def reason_line(report: pytest.TestReport) -> str:
    """The first line of what a report says went wrong (a skip's reason, a failure's headline)."""
    if report.skipped and isinstance(report.longrepr, tuple):
        text = str(report.longrepr[2]).removeprefix("Skipped: ")
    else:
        text = failure_text(report)
    return next((line.strip() for line in bound(text).splitlines() if line.strip()), report.outcome)[:300]


def gradings_of(item: RunItem) -> int:
    """How many times `item` is graded: `--tcab-regrade` for what a page, the judge or wasm decides."""
    return int(item.config.getoption("tcab_regrade") or 1) if item.kind in REGRADED_KINDS else 1


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> bool | None:
    """A run item graded more than once (a retry, a regrade), its last attempt's reports logged."""
    if not isinstance(item, RunItem):
        return None
    retries = int(item.config.getoption("tcab_retries") or 0)
    gradings = gradings_of(item)
    if not retries and gradings == 1:
        return None  # pytest's own protocol
    item.ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
    collected = list(item.user_properties)
    attempts: list[list[Attempt]] = []
    for _ in range(gradings):
        attempts.append(graded(item, nextitem, retries, collected, first=not attempts))
        if item.session.shouldstop or item.session.shouldfail:
            break  # an interrupted session grades nothing more
    final = attempts[-1][-1]
    _annotate(item, final, attempts)
    for report in final.reports:
        item.ihook.pytest_runtest_logreport(report=report)
    item.ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
    return True


def graded(item: RunItem, nextitem: pytest.Item | None, retries: int, collected: list[tuple[str, object]], *,
           first: bool) -> list[Attempt]:
    """One grading of `item`: its attempts, the first and then one per retry while it was not graded."""
    # What pytest-rerunfailures runs: pytest has no public way to run an item again.
    from _pytest.runner import runtestprotocol

    attempts: list[Attempt] = []
    while True:
        if not (first and not attempts):
            item.fresh_attempt(list(collected))
        reports = runtestprotocol(item, nextitem=nextitem, log=False)
        attempts.append(Attempt(reports, sum(report.duration for report in reports)))
        session = item.session
        if attempts[-1].not_graded is None or len(attempts) > retries or session.shouldstop or session.shouldfail:
            return attempts


def _annotate(item: RunItem, final: Attempt, attempts: list[list[Attempt]]) -> None:
    """Put every attempt and grading on the last attempt's reports (`report.tcab`'s figures, which
    results.json reads); a verdict whose gradings disagree is made `unstable`."""
    regraded = len(attempts) > 1
    flat = [(number, attempt) for number, grading in enumerate(attempts, start=1) for attempt in grading]
    records = [attempt.record(count, grading if regraded else None)
               for count, (grading, attempt) in enumerate(flat, start=1)]
    outcomes = [grading[-1].outcome for grading in attempts]
    item.record_attempts(records, outcomes if regraded else None)
    if regraded:
        decided = {grading[-1].outcome for grading in attempts if grading[-1].not_graded is None}
        if len(decided) > 1 and final.not_graded is None:  # a grading the grader broke decides nothing
            _make_unstable(final, outcomes)
    for report in final.reports:  # made before the attempts were known: they join the figures
        data = getattr(report, "tcab", None)
        if data is not None:
            data["figures"].update({name: item.figures[name] for name in ("attempts", "gradings")
                                    if name in item.figures})


def _make_unstable(final: Attempt, outcomes: list[str]) -> None:
    """The deciding report of a verdict whose gradings disagreed fails as `unstable`: a failure of
    the grader (its script, or the grader itself, disagrees with itself on one build), not a
    result of the run."""
    report = final.deciding
    said = ", ".join(outcomes)
    report.outcome = "failed"
    report.longrepr = (f"{UNSTABLE}: graded {len(outcomes)} times on one build, it ended {said}: the grader "
                       "disagrees with itself (an unseeded or time-dependent validation script, or a flaky driver); "
                       "it earns nothing (available, unearned) until a reviewer overrides it with a note")
    report.user_properties = [*(prop for prop in report.user_properties if prop[0] != STATUS_PROPERTY),
                              (STATUS_PROPERTY, UNSTABLE)]
    if hasattr(report, "wasxfail"):
        del report.wasxfail
