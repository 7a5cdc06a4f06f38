"""How a tcab failure reaches the terminal: its message as written (never a traceback), a one-line
summary for `-rf` and JUnit's `message`, and one line per problem under `--tb=line`.

pytest reads those from a failure's `reprcrash`; it has no public constructor for one, so this
module builds the representation pytest builds for a native traceback (`_pytest._code.code`,
stable since pytest 5), which pytest-xdist also knows how to ship to its controller.
"""

from __future__ import annotations

import dataclasses
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

    The lines are not a field, so a report shipped by pytest-xdist arrives as a plain
    `ReprFileLocation` and prints its first line only.
    """

    def toterminal(self, tw: Any) -> None:
        for line in getattr(self, "lines", None) or [f"{self.path}:{self.lineno}: {self.message}"]:
            tw.line(line)


def failure_repr(text: str, location: tuple[Path, int | None], *, summary: str | None = None,
                 lines: list[str] | None = None) -> ReprExceptionInfo:
    """`text` as the failure; `summary` (its first line) for `-rf`; `lines` (that line) under `--tb=line`."""
    summary = _headline(summary or (text.strip().splitlines() or ["failed"])[0])
    path, line = location
    crash = _CrashLines(str(path), line or 1, summary)
    crash.lines = lines or [f"{path}:{line or 1}: {summary}"]  # type: ignore[attr-defined]
    traceback = ReprTraceback([ReprEntryNative([text.rstrip("\n") + "\n"])], None, "native")
    return ReprExceptionInfo(reprtraceback=traceback, reprcrash=crash)


def _headline(line: str, limit: int = 200) -> str:
    """A summary short enough for `-rf` and JUnit's `message` (the text itself follows in full)."""
    return line if len(line) <= limit else line[: limit - 3] + "..."


def is_plain(error: BaseException) -> bool:
    """A failure told as a message: a tcab error, or `pytest.fail(..., pytrace=False)`."""
    from pytest_tcab.errors import TcabError

    return isinstance(error, TcabError) or (isinstance(error, pytest.fail.Exception) and not error.pytrace)


def item_failure(item: pytest.Item, error: BaseException) -> ReprExceptionInfo:
    """A tcab error raised by `item`, at the item's own location."""
    if isinstance(error, ProblemsFound):
        return problems_repr(error, item_location(item))
    return failure_repr(str(error), item_location(item))


def item_location(item: pytest.Item) -> tuple[Path, int | None]:
    """The file and 1-based line `item.reportinfo()` points at."""
    path, line, _ = item.reportinfo()
    return Path(path), (line or 0) + 1


def problems_repr(found: ProblemsFound, fallback: tuple[Path, int | None]) -> ReprExceptionInfo:
    """Every problem in full; the first one as the summary; one line per problem under `--tb=line`."""
    lines = [problem.format(found.root).splitlines()[0] for problem in found.problems]
    if not lines:
        return failure_repr(str(found), fallback)
    first = found.problems[0]
    more = f" (and {len(lines) - 1} more)" if len(lines) > 1 else ""
    return failure_repr(str(found), (first.path, first.line), summary=lines[0] + more, lines=lines)
