"""Run items' reports: every text bounded, and each text once in JUnit.

A run item's failure, skip or xfail reason usually quotes what the graded code wrote (notes,
page errors, build logs); bounding the report itself covers every way an item can end. JUnit
would hold a string failure twice (pytest writes it as the `message` attribute and as the body)
and a third time in the figures property: the message becomes the headline, and a figure the
failure already quotes is written as a pointer to it.

A plugin of its own (listed in plugin.py) so that the xdist controller, which writes JUnit but
collects nothing, has it too. Only reports of run items are touched: they carry `tcab.item`.
The runs `--tcab-resume` kept are not collected again, so their items are written here, from
their results.json, as they were recorded (`CarriedTestcases`).
"""

from __future__ import annotations

from collections.abc import Generator
from pathlib import Path
from typing import Any
from typing import Literal

import pytest

from pytest_tcab.bounded import bound
from pytest_tcab.failures import failure_repr
from pytest_tcab.outcomes import NOT_GRADED_PROPERTY
from pytest_tcab.outcomes import OVER_CEILING
from pytest_tcab.outcomes import RECORDED
from pytest_tcab.outcomes import STATUS_PROPERTY
from pytest_tcab.outcomes import UNSTABLE

_KIND_PROPERTY = "tcab.kind"
"""Every run item carries it (`RunItem`'s identity properties)."""
QUOTED = "(quoted in the failure message)"
"""What JUnit's figures property holds in place of a text the failure message already quotes."""
_QUOTE_PROBE = 256
"""A figure text longer than this counts as quoted when its first or its last this many characters
appear in the failure (a bounded failure may keep only one end of it); shorter ones (ids, paths)
are left alone."""

_failures: dict[tuple[str, object], str] = {}
"""Failure text of each run item between its call report and its teardown report (nodeid, worker)."""


def _is_run_item(report: pytest.TestReport) -> bool:
    return any(name == _KIND_PROPERTY for name, _ in report.user_properties)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    if _is_run_item(report):
        _bound_report(report)
    return report


def _bound_report(report: pytest.TestReport) -> None:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple):  # a skip: (path, line, reason)
        path, line, reason = longrepr
        report.longrepr = (path, line, bound(reason))
    elif longrepr is not None:
        text = str(longrepr) if isinstance(longrepr, str) else report.longreprtext
        bounded = bound(text)
        if bounded is not text or isinstance(longrepr, str):
            # A failure representation: `-rf` (uncut under CI) and JUnit's `message` read its headline.
            path, lineno, _ = report.location
            report.longrepr = failure_repr(bounded, (Path(path), (lineno or 0) + 1))
    if hasattr(report, "wasxfail"):
        report.wasxfail = bound(report.wasxfail)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_logreport(report: pytest.TestReport) -> Generator[None, None, None]:
    if not _is_run_item(report):
        return (yield)
    key = (report.nodeid, getattr(report, "node", None))
    text = report.longrepr
    if report.failed and not isinstance(text, tuple):
        _failures[key] = report.longreprtext
    if report.when == "teardown" and report.passed:
        failure = _failures.pop(key, None)
        if failure is not None:
            report.user_properties = [_unquoted(name, value, failure) for name, value in report.user_properties]
    return (yield)


def _unquoted(name: str, value: Any, failure: str) -> tuple[str, Any]:
    return name, _pointer(value, failure) if name.startswith("tcab.") else value


def _pointer(figure: Any, failure: str) -> Any:
    if isinstance(figure, str) and len(figure) > _QUOTE_PROBE and (
        figure[:_QUOTE_PROBE] in failure or figure[-_QUOTE_PROBE:] in failure
    ):
        return QUOTED
    if isinstance(figure, list):
        return [_pointer(entry, failure) for entry in figure]
    return figure



# -- attempts: the Surefire elements Jenkins, Allure and GitLab read (`run.attempts`) ----------------------------

RERUN_TYPE = "tcab.not-graded"
"""The `type` of an earlier attempt's element: the grader broke (`run.attempts` retries nothing else)."""


@pytest.hookimpl(trylast=True)
def pytest_configure(config: pytest.Config) -> None:
    """With `--junitxml`, each earlier attempt of a retried item is written into its `<testcase>`."""
    from _pytest.junitxml import xml_key  # what the `record_testsuite_property` fixture uses

    xml = config.stash.get(xml_key, None)
    if xml is not None and not hasattr(config, "workerinput"):
        config.pluginmanager.register(AttemptElements(xml), "tcab-junit-attempts")
        config.pluginmanager.register(CarriedTestcases(config, xml), "tcab-junit-carried")


class AttemptElements:
    """Maven Surefire's convention for a test run more than once: an earlier failed attempt is a
    `<flakyFailure>` (or `<flakyError>`, failed in setup) when the test ended passing or skipped,
    a `<rerunFailure>` (`<rerunError>`) when it failed again; each holds the attempt's message and
    a `<stackTrace>`. pytest's own element (`<failure>`, `<skipped>`) stays the final outcome."""

    def __init__(self, xml: Any) -> None:
        self.xml = xml

    @pytest.hookimpl(tryfirst=True)  # before junitxml closes the testcase on the teardown report
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        data = getattr(report, "tcab", None)
        attempts = (data or {}).get("figures", {}).get("attempts") or []
        if report.when != "teardown" or len(attempts) < 2:
            return
        import xml.etree.ElementTree as ET

        failed = attempts[-1]["outcome"] not in ("passed", "skipped", "excluded", "recorded")
        reporter = self.xml.node_reporter(report)
        for attempt in attempts[:-1]:
            if not attempt.get("not_graded"):
                continue  # a grading of `--tcab-regrade`, not a retry: its outcome is in the gradings
            tag = ("rerun" if failed else "flaky") + ("Error" if attempt.get("phase") == "setup" else "Failure")
            text = attempt.get("not_graded") or attempt.get("message") or attempt["outcome"]
            element = ET.Element(tag, message=f"attempt {attempt['attempt']}: {text}"[:300], type=RERUN_TYPE)
            ET.SubElement(element, "stackTrace").text = str(attempt.get("message") or text)
            reporter.append(element)


# -- the runs a resume kept: a resumed shard's JUnit file holds every run its results.json holds ---------------

CARRIED_PROPERTY = "tcab.carried"
"""On the `<testcase>` of an item a resume kept: the session that graded it is an earlier one."""
CARRIED_VALUE = "graded by an earlier session, kept by --tcab-resume"
_FAILED_WORDS = (OVER_CEILING, UNSTABLE, "failed")
_SKIPPED_WORDS = (RECORDED, "excluded", "skipped")


class CarriedTestcases:
    """One `<testcase>` for each item of each run `--tcab-resume` kept (`ResultsRecorder.carried`), with
    the outcome, message and properties its results.json recorded and :data:`CARRIED_PROPERTY`, so CI
    that reads the JUnit file of a resumed shard sees the runs its results.json holds, no fewer."""

    def __init__(self, config: pytest.Config, xml: Any) -> None:
        self.config = config
        self.xml = xml
        self.reported: set[str] = set()
        """The node ids this session reported itself: a run graded again is written by pytest."""

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.reported.add(report.nodeid)

    @pytest.hookimpl(tryfirst=True)  # before junitxml writes its file
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        from pytest_tcab.run.report.results import results_key

        recorder = self.config.stash.get(results_key, None)
        for _, run in sorted((recorder.carried if recorder is not None else {}).items()):
            entries = [entry for entry in run.get("items", []) if isinstance(entry, dict) and entry.get("nodeid")]
            if any(entry["nodeid"] in self.reported for entry in entries):
                continue  # graded again by this session: its own reports made its testcases
            for entry in entries:
                for report in carried_reports(entry):
                    self.xml.pytest_runtest_logreport(report)


def carried_reports(entry: dict[str, Any]) -> tuple[pytest.TestReport, pytest.TestReport]:
    """The call and teardown reports junitxml makes a `<testcase>` of, from an item's results.json entry."""
    nodeid = str(entry["nodeid"])
    path, _, name = nodeid.partition("::")
    word = str(entry.get("outcome", "passed"))
    message = str(entry.get("message") or word)
    location = (path, None, name or nodeid)
    outcome: Literal["passed", "failed", "skipped"] = "passed"
    longrepr: Any = None
    if word in _FAILED_WORDS:
        outcome, longrepr = "failed", message
    elif word in _SKIPPED_WORDS:
        outcome, longrepr = "skipped", (path, 0, message)
    properties: list[tuple[str, object]] = [(CARRIED_PROPERTY, CARRIED_VALUE), (STATUS_PROPERTY, word)]
    if entry.get("not_graded"):
        properties.append((NOT_GRADED_PROPERTY, str(entry["not_graded"])))
    duration = float(entry.get("duration_s", 0.0) or 0.0)
    call = pytest.TestReport(nodeid, location, {}, outcome, longrepr, "call", duration=duration)
    teardown = pytest.TestReport(nodeid, location, {}, "passed", None, "teardown", user_properties=properties)
    return call, teardown
