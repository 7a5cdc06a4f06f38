"""Problems: what a suite author or a produced build got wrong, located and worded for them."""

from __future__ import annotations

import os
from collections.abc import Iterable
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

KeyPath = tuple[str | int, ...]
"""A TOML key path: table keys and array indices, e.g. ``("review", "categories", 2, "items")``."""


def format_key_path(key: KeyPath) -> str:
    """Render a key path the way TOML authors write it: ``review.categories[2].items[0].id``."""
    out = ""
    for part in key:
        if isinstance(part, int):
            out += f"[{part}]"
            continue
        text = part if _is_bare_key(part) else '"' + part.replace('"', '\\"') + '"'
        out += f".{text}" if out else text
    return out


def _is_bare_key(key: str) -> bool:
    return bool(key) and all(ch.isascii() and (ch.isalnum() or ch in "-_") for ch in key)


@dataclass(frozen=True)
class Problem:
    """One broken rule: where it is (file, 1-based line, key path), what is wrong, what would be right."""

    path: Path
    line: int | None
    key: KeyPath
    message: str
    hint: str | None = None

    def format(self, root: Path | None = None) -> str:
        where = _display_path(self.path, root)
        if self.line is not None:
            where += f":{self.line}"
        head = f"{where}: `{format_key_path(self.key)}`: " if self.key else f"{where}: "
        text = head + self.message
        if self.hint:
            text += f"\n    Hint: {self.hint}"
        return text


def _display_path(path: Path, root: Path | None) -> str:
    if root is not None:
        try:
            return os.path.relpath(path, root)
        except ValueError:  # another drive on Windows
            pass
    return str(path)


class TcabError(Exception):
    """Base of the errors pytest-tcab reports as plain messages, never as a traceback."""


class ProblemsFound(TcabError):
    """Resolution found broken rules; each is reported, none is raised alone."""

    def __init__(self, problems: Sequence[Problem], root: Path | None = None) -> None:
        self.problems = tuple(sorted(problems, key=_problem_order))
        self.root = root
        super().__init__(format_problems(self.problems, root))


def _problem_order(problem: Problem) -> tuple[str, int, str]:
    return (str(problem.path), problem.line or 0, problem.message)


def format_problems(problems: Iterable[Problem], root: Path | None = None) -> str:
    """Every problem on its own lines, in file then line order, counted."""
    problems = sorted(problems, key=_problem_order)
    count = len(problems)
    lines = [f"{count} problem{'s' if count != 1 else ''}:"] if count > 1 else []
    lines.extend(p.format(root) for p in problems)
    return "\n".join(lines)
