"""Run items' reports: every text bounded, and each text once in JUnit.

A run item's failure, skip or xfail reason usually quotes what the graded code wrote (notes,
page errors, build logs); bounding the report itself covers every way an item can end. JUnit
would hold a string failure twice (pytest writes it as the `message` attribute and as the body)
and a third time in the figures property: the message becomes the headline, and a figure the
failure already quotes is written as a pointer to it.

A plugin of its own (listed in plugin.py) so that the xdist controller, which writes JUnit but
collects nothing, has it too. Only reports of run items are touched: they carry `tcab.item`.
"""

from __future__ import annotations

from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

from pytest_tcab.bounded import bound
from pytest_tcab.failures import failure_repr

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
