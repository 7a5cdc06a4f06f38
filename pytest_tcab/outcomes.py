"""tcab's own outcome words: over-ceiling is neither a pass nor a plain failure."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_tcab.errors import TcabError

OVER_CEILING = "over-ceiling"
STATUS_PROPERTY = "tcab.status"


class OverCeiling(TcabError):
    """Finished only on the runway above the fuel ceiling: no comparable score (exit status 1)."""

    def __init__(self, message: str) -> None:
        super().__init__(f"{OVER_CEILING}: {message}")


def mark_over_ceiling(item: pytest.Item) -> None:
    """Tag `item`'s reports so the terminal, JUnit and results.json say over-ceiling."""
    item.user_properties.append((STATUS_PROPERTY, OVER_CEILING))


def pytest_report_teststatus(report: pytest.TestReport, config: pytest.Config) -> Any:
    if report.when == "call" and report.failed and (STATUS_PROPERTY, OVER_CEILING) in report.user_properties:
        return OVER_CEILING, "C", ("OVER-CEILING", {"yellow": True})
    return None
