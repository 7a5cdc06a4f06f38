"""How a tcab failure reaches the terminal: its message as written (never a traceback), a one-line
summary for `-rf` and JUnit's `message`, and one line per problem under `--tb=line`.

pytest reads those from a failure's `reprcrash`; it has no public constructor for one, so this
module builds the representation pytest builds for a native traceback (`_pytest._code.code`,
stable since pytest 5), which pytest-xdist also knows how to ship to its controller. A plugin of
its own (listed in plugin.py): the lines of `--tb=line` cross the worker boundary beside the
report, since xdist ships a crash location as its three fields only.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest
from _pytest._code.code import ReprEntryNative
from _pytest._code.code import ReprExceptionInfo
from _pytest._code.code import ReprFileLocation
from _pytest._code.code import ReprTraceback

from pytest_tcab.errors import ProblemsFound


@dataclasses.dataclass(eq=False)
class _CrashLines(ReprFileLocation):
    """`--tb=line` prints a failure's crash location: here, one line per problem.

    The lines are not a field: pytest-xdist ships a crash location as its fields, so they travel
    beside the report (`_LINES_KEY`) and are put back on the controller.
    """

    def toterminal(self, tw: Any) -> None:
        for line in getattr(self, "lines", None) or [f"{self.path}:{self.lineno}: {self.message}"]:
            tw.line(line)


def _crash_lines(path: str, lineno: int, message: str, lines: list[str]) -> _CrashLines:
    crash = _CrashLines(path, lineno, message)
    crash.lines = lines  # type: ignore[attr-defined]
    return crash


_LINES_KEY = "tcab_crash_lines"
"""The serialized report's key for the `--tb=line` lines of a tcab failure (pytest-xdist)."""
_TEXT_KEY = "tcab_failure_text"
"""The serialized report's key for the text a `--tb=line` failure leaves out of its representation."""


def failure_text(report: pytest.TestReport) -> str:
    """The failure as written, also when `--tb=line` represents it by its lines alone."""
    return getattr(report.longrepr, "full_text", None) or report.longreprtext


@pytest.hookimpl(wrapper=True)
def pytest_report_to_serializable(report: pytest.TestReport) -> Generator[None, Any, Any]:
    data = yield
    lines = getattr(getattr(report.longrepr, "reprcrash", None), "lines", None)
    if isinstance(data, dict) and lines:
        data[_LINES_KEY] = list(lines)
    text = getattr(report.longrepr, "full_text", None)
    if isinstance(data, dict) and text:
        data[_TEXT_KEY] = text
    return data


@pytest.hookimpl(wrapper=True)
def pytest_report_from_serializable(data: dict[str, Any]) -> Generator[None, Any, Any]:
    report = yield
    lines = data.get(_LINES_KEY)
    longrepr = getattr(report, "longrepr", None)
    crash = getattr(longrepr, "reprcrash", None)
    if lines and isinstance(crash, ReprFileLocation):
        longrepr.reprcrash = _crash_lines(crash.path, crash.lineno, crash.message, list(lines))  # type: ignore[union-attr]
    text = data.get(_TEXT_KEY)
    if text and isinstance(longrepr, ReprExceptionInfo):
        longrepr.full_text = text  # type: ignore[attr-defined]
    if report is not None:
        report.__dict__.pop(_LINES_KEY, None)
        report.__dict__.pop(_TEXT_KEY, None)
    return report


def failure_repr(text: str, location: tuple[Path, int | None], *, summary: str | None = None,
                 lines: list[str] | None = None, lines_only: bool = False,
                 written: str | None = None) -> ReprExceptionInfo:
    """`text` as the failure; `summary` (its first line) for `-rf`; `lines` (that line) under `--tb=line`.

    `lines_only`: the text is left out, for `--tb=line`, where pytest prints the whole failure
    and then its crash lines; it stays readable as `full_text` (see `failure_text`). `written`:
    the failure as its error wrote it, when `text` adds to it (where it is declared): what
    results keep (`full_text`).
    """
    summary = _headline(summary or (text.strip().splitlines() or ["failed"])[0])
    path, line = location
    crash = _crash_lines(str(path), line or 1, summary, lines or [f"{path}:{line or 1}: {summary}"])
    entries = [] if lines_only else [ReprEntryNative([text.rstrip("\n") + "\n"])]
    traceback = ReprTraceback(entries, None, "native")
    info = ReprExceptionInfo(reprtraceback=traceback, reprcrash=crash)
    if lines_only or written is not None:
        info.full_text = text if written is None else written  # type: ignore[attr-defined]
    return info


def _headline(line: str, limit: int = 200) -> str:
    """A summary short enough for `-rf` and JUnit's `message` (the text itself follows in full)."""
    return line if len(line) <= limit else line[: limit - 3] + "..."


def is_plain(error: BaseException) -> bool:
    """A failure told as a message: a tcab error, or `pytest.fail(..., pytrace=False)`."""
    from pytest_tcab.errors import TcabError

    return isinstance(error, TcabError) or (isinstance(error, pytest.fail.Exception) and not error.pytrace)


def item_failure(item: pytest.Item, error: BaseException) -> ReprExceptionInfo:
    """A tcab error raised by `item`, at the item's own location; one declared in another file
    than the item's (a run item's `[[check]]`) says that `file:line` in its text, which IDE
    explorers show, since they open the item's own file."""
    lines_only = item.config.getoption("tbstyle") == "line"
    location = item_location(item)
    if isinstance(error, ProblemsFound):
        return problems_repr(error, location, lines_only=lines_only)
    written = str(error)
    path, line = location
    if os.path.realpath(path) == os.path.realpath(item.path):
        return failure_repr(written, location, lines_only=lines_only)
    text = f"{written.rstrip()}\n(declared at {os.path.relpath(path, item.config.rootpath)}:{line or 1})"
    return failure_repr(text, location, lines_only=lines_only, written=written)


def item_location(item: pytest.Item) -> tuple[Path, int | None]:
    """The file and 1-based line a failure of `item` is told at: the TOML table it is declared by
    (`declared_at`, which may be another file than the one its id names), else its `reportinfo`."""
    declared = getattr(item, "declared_at", None)
    if callable(declared):
        path, line = declared()
        return Path(path), line or 1
    path, line, _ = item.reportinfo()
    return Path(path), (line or 0) + 1


def problems_repr(found: ProblemsFound, fallback: tuple[Path, int | None], *,
                  lines_only: bool = False) -> ReprExceptionInfo:
    """Every problem in full; the first one as the summary; one line per problem under `--tb=line`
    (and only those lines when `lines_only`)."""
    lines = [problem.format(found.root).splitlines()[0] for problem in found.problems]
    if not lines:
        return failure_repr(str(found), fallback)
    first = found.problems[0]
    more = f" (and {len(lines) - 1} more)" if len(lines) > 1 else ""
    return failure_repr(str(found), (first.path, first.line), summary=lines[0] + more, lines=lines,
                        lines_only=lines_only)
