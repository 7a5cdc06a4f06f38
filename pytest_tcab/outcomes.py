"""tcab's own outcome words: over-ceiling is neither a pass nor a plain failure, recorded neither
a failure nor a step that did not run."""

from __future__ import annotations

import errno
from typing import Any
from typing import NoReturn

import pytest

from pytest_tcab.errors import TcabError
from pytest_tcab.failures import failure_text

OVER_CEILING = "over-ceiling"
COUNTED_FAILED = "failed"
"""The results.json outcome of a skip that still costs the run its result (fuel never measured)."""
RECORDED = "recorded"
"""A recorded toolchain step that exited non-zero: its exit code and output are figures, not a gate."""
UNSTABLE = "unstable"
"""A verdict whose gradings of one build disagreed (`--tcab-regrade`): a failure of the grader, counted in no score."""
STATUS_PROPERTY = "tcab.status"
NOT_GRADED_PROPERTY = "tcab.not_graded"
"""Why an item's grading broke through no act of the produced code (see `NotGraded`)."""


class OverCeiling(TcabError):
    """Finished only on the runway above the fuel ceiling: no comparable score (exit status 1)."""

    def __init__(self, message: str) -> None:
        super().__init__(f"{OVER_CEILING}: {message}")


class NotGraded(TcabError):
    """Grading itself broke through no act of the produced code: the judge runtime died, the
    browser or the sandbox could not start, the grading machine ran out of disk. An error of the
    run, "not graded: <why>", kept apart from a failed build or verdict: a sweep leaves the run
    out of its means and `--tcab-resume` grades it again. Never raised for what the produced code
    can cause (its page crashing, a cap or timeout it hit): that is the run's failure."""

    def __init__(self, why: str) -> None:
        super().__init__(f"not graded: {why}")
        self.why = why


def not_graded_reason(error: BaseException) -> str | None:
    """Why `error` leaves its item not graded, or None when it is the run's own failure."""
    if isinstance(error, NotGraded):
        return error.why
    if isinstance(error, OSError) and error.errno == errno.ENOSPC:
        return f"the grading machine ran out of disk ({error})"
    return None


def mark_not_graded(item: pytest.Item, why: str) -> None:
    """Tag `item`'s reports as not graded (a skip the grader caused: no browser on this host)."""
    item.user_properties.append((NOT_GRADED_PROPERTY, why))


def skip_unless_strict(config: pytest.Config, reason: str) -> NoReturn:
    """Skip with `reason`; under `--tcab-strict` fail with it, as a gating validator would."""
    if config.getoption("tcab_strict"):
        pytest.fail(f"{reason} (--tcab-strict)", pytrace=False)
    skip_at_item(reason)


def skip_at_item(reason: str) -> NoReturn:
    """Skip, reported at the item's own location (its TOML line), not at the line that skipped.

    What `@pytest.mark.skipif` does (pytest's `_use_item_location`, there since pytest 6)."""
    raise pytest.skip.Exception(reason, _use_item_location=True)


def mark_over_ceiling(item: pytest.Item) -> None:
    """Tag `item`'s reports so the terminal, JUnit and results.json say over-ceiling."""
    item.user_properties.append((STATUS_PROPERTY, OVER_CEILING))


def count_as_failed(item: pytest.Item) -> None:
    """Tag `item`'s skip so results.json counts it as failed.

    The terminal keeps the skip, which says why the item did not run; the score must still read
    an unmeasured stress case as a loss, or a run could dodge measurement by failing a smoke case.
    """
    item.user_properties.append((STATUS_PROPERTY, COUNTED_FAILED))


def mark_recorded(item: pytest.Item) -> None:
    """Tag `item`'s skip so the terminal and results.json say recorded.

    A skip keeps the step out of the exit status (spec/definitions.md: "the rest are recorded"),
    also under `--tcab-strict`, which mirrors a gate this step is not part of; the word says the
    step ran and what it found, where a plain skip would read as "did not run".
    """
    item.user_properties.append((STATUS_PROPERTY, RECORDED))


def outcome_of(report: pytest.TestReport) -> str:
    """The word results.json gives a report's outcome: pytest's, or tcab's own (over-ceiling,
    recorded, a skip counted failed, unstable), an erratum's xfail `excluded`."""
    status = dict(report.user_properties).get(STATUS_PROPERTY)
    if status in (OVER_CEILING, COUNTED_FAILED, RECORDED, UNSTABLE):
        return str(status)
    if hasattr(report, "wasxfail"):
        return "excluded" if report.skipped else "passed"
    return report.outcome


def verdict_of(outcome: str) -> bool | None:
    """The verdict an outcome word decides: True for passed, False for failed, None for any word
    that decides nothing (pending, excluded, not_run, a skip).

    An unstable verdict (its gradings disagreed, `--tcab-regrade`) is False: the grader's failure,
    it stays available and unearned, or a build could raise its score by flipping a point it fails.
    """
    return {"passed": True, "failed": False, UNSTABLE: False}.get(outcome)


def pytest_report_teststatus(report: pytest.TestReport, config: pytest.Config) -> Any:
    if not isinstance(report, pytest.TestReport):  # a collection report has no outcome word of ours
        return None
    if report.failed and (STATUS_PROPERTY, UNSTABLE) in report.user_properties:
        return UNSTABLE, "U", ("UNSTABLE", {"red": True})
    if report.when == "call" and report.failed and (STATUS_PROPERTY, OVER_CEILING) in report.user_properties:
        return OVER_CEILING, "C", ("OVER-CEILING", {"yellow": True})
    if report.when == "call" and report.skipped and (STATUS_PROPERTY, RECORDED) in report.user_properties:
        return RECORDED, "r", ("RECORDED", {"yellow": True})
    return None


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    _over_ceiling_summary(terminalreporter)
    _recorded_summary(terminalreporter)
    _unstable_summary(terminalreporter)


def _unstable_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """List unstable verdicts with their gradings' outcomes: a failure of the grader, which pytest's
    FAILURES section (plain failures only) would not show."""
    reports = terminalreporter.stats.get(UNSTABLE, [])
    if not reports:
        return
    terminalreporter.section("unstable: the grader disagrees with itself", sep="-", red=True)
    for report in reports:
        text = failure_text(report)
        message = next((line for line in text.splitlines() if line.startswith(f"{UNSTABLE}: ")), text.strip())
        terminalreporter.write_line(f"UNSTABLE {report.nodeid} - {message}")


def _over_ceiling_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """List over-ceiling items with their fuel: pytest's FAILURES section only shows plain failures,
    and how far over the ceiling a run went is the one thing its reader wants to know."""
    reports = terminalreporter.stats.get(OVER_CEILING, [])
    if not reports:
        return
    terminalreporter.section("over the fuel ceiling", sep="-", yellow=True)
    prefix = f"{OVER_CEILING}: "
    for report in reports:
        # Under xdist the text starts with the worker's header line; the message is the line after.
        text = failure_text(report)
        message = next((line for line in text.splitlines() if line.startswith(prefix)), text.strip())
        terminalreporter.write_line(f"OVER-CEILING {report.nodeid} - {message.removeprefix(prefix)}")


def _recorded_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """List recorded steps with how they ended: pytest's `-rs` summary lists plain skips only, and a
    lint that failed is worth seeing even though it does not fail the run."""
    reports = terminalreporter.stats.get(RECORDED, [])
    if not reports:
        return
    terminalreporter.section("recorded, not gating", sep="-", yellow=True)
    for report in reports:
        reason = str(report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr)
        reason = reason.removeprefix("Skipped: ").removeprefix(f"{RECORDED}: ")
        terminalreporter.write_line(f"RECORDED {report.nodeid} - {reason}")
    terminalreporter.write_line(f"{len(reports)} recorded: only typecheck rates a run broken; the exit code and "
                                "output of the others are in results.json")
