"""The base every author-mode family of items shares: a case's file and an item listing problems.

Resolve, errata, slug, config, template and seed items all live under a `CaseFile` and report
like `ProblemsItem`: each problem at its file and line, no traceback, under a header that names
the case and version (`pong@v2.0.0 resolve[base]`) so a report over a whole catalog reads
without the paths.

An item's location is a line of its own file, the one its node id names (`item.path`): IDE
explorers build a test's id from `item.path` and open that file at the location's line
(`own_line`). A place in another file (a template, a variant file) is said in the failure text.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any

import pytest

from pytest_tcab.errors import KeyPath
from pytest_tcab.errors import Problem
from pytest_tcab.errors import ProblemsFound
from pytest_tcab.failures import item_failure
from pytest_tcab.nodeids import OwnName
from pytest_tcab.nodeids import match_saved_form
from pytest_tcab.toml import line_in

if TYPE_CHECKING:
    from pytest_tcab.suite import Suite

Location = tuple[Path, int | None]
"""A file and its 1-based line (None: the top of the file)."""
Where = Location | Callable[[], Location] | None
"""An item's location, or how to find it when pytest first asks (a key's line costs a scan)."""


class CaseFile(pytest.File):
    """A file whose items belong to one case version (or one suite file)."""

    case_label: str = ""
    """`<slug>@<version>`, set when the file is collected; failure headers start with it."""

    def release_case(self) -> None:
        """Called once the file's last item ran: what only its items needed may go."""


def header(item: pytest.Item) -> str:
    """The failure header of an author-mode item: the case and version, then the item's name."""
    label = getattr(item.parent, "case_label", "")
    return f"{label} {item.name}" if label else f"tcab: {item.name}"


class ProblemsItem(OwnName, pytest.Item):
    """An item that passes when its rules find no problem, and lists every problem otherwise.

    Its location is what an author would open: the first problem found at collection, else
    `where` (the TOML key the item is about), else the top of its file.
    """

    def __init__(self, *, check: Callable[[], list[Problem]], where: Where = None,
                 experimental: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        match_saved_form(self)
        self._check = check
        self._where = where
        self.experimental = experimental

    def runtest(self) -> None:
        problems = self._check()
        if problems:
            raise ProblemsFound(problems, self.config.rootpath)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, ProblemsFound):
            return item_failure(self, excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        if callable(self._where):
            self._where = self._where()
        return self.path, own_line(self, self._where), header(self)


def same_file(a: Path, b: Path) -> bool:
    return a == b or os.path.realpath(a) == os.path.realpath(b)


def own_line(item: pytest.Item, where: Location | None, fallback: int | None = None) -> int:
    """The 0-based line `reportinfo` gives: `where`'s when it is in the item's own file, else
    `fallback` (a 1-based line of that file), else its top. Never a line of another file, which
    an explorer would open in the item's file, past its end."""
    if where is not None and where[1] and same_file(where[0], item.path):
        return where[1] - 1
    return fallback - 1 if fallback else 0


def first_location(problems: list[Problem], path: Path) -> Location | None:
    """Where the first problem located in `path` is: where an item of that file should lead."""
    return next(((p.path, p.line) for p in problems if p.line and same_file(p.path, path)), None)


def key_location(path: Path, *keys: KeyPath) -> Location:
    """The line of the first of `keys` declared in `path` (else its top): what an item is about."""
    return path, next((line for key in keys if (line := line_in(path, key))), 1)


def suite_key_location(suite: Suite, path: Path, *keys: KeyPath) -> Callable[[], Location]:
    """`key_location` in a file of `suite`, found when first asked (from the suite's parsed file):
    collection then lists items without scanning, and xdist workers share the scans."""
    def locate() -> Location:
        with suite.reading():
            return key_location(path, *keys)
    return locate
