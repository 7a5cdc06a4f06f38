"""Small helpers every rule module shares: where a clash is, which values repeat, what was meant."""

from __future__ import annotations

import difflib
import os
from collections import Counter
from collections.abc import Iterable
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from pytest_tcab.errors import KeyPath
from pytest_tcab.errors import format_key_path
from pytest_tcab.toml import TomlDocument


@dataclass(frozen=True)
class Located:
    """A declaration and where it was written, so a cross-reference rule can point at it."""

    doc: TomlDocument
    key: KeyPath


def where(doc: TomlDocument, key: KeyPath, folder: Path | None = None) -> str:
    """How a problem names the other declaration it clashes with: key path, file and line.

    With `folder`, the file is named relative to it (many files of a suite tree share a name).
    """
    line = doc.line_of(key)
    name = os.path.relpath(doc.path, folder).replace(os.sep, "/") if folder else doc.path.name
    return f"`{format_key_path(key)}` ({name}{f':{line}' if line else ''})"


def duplicates(values: Iterable[str]) -> Iterator[str]:
    """Each value that occurs more than once, once."""
    counts = Counter(values)
    return (value for value, count in counts.items() if count > 1)


def second(values: list[str], value: str) -> int:
    """The index of the second occurrence: the one to point at as the duplicate."""
    return values.index(value, values.index(value) + 1)


def norm(path: str) -> str:
    """A relative path as a seeding destination compares: no `.` segments, no doubled slashes."""
    return "/".join(part for part in path.replace("\\", "/").split("/") if part not in ("", "."))


def suggest(value: str, known: Iterable[str], what: str) -> str:
    """A hint: the closest known name, or the known names, or that none are declared."""
    names = sorted(known)
    close = difflib.get_close_matches(value, names, n=1)
    if close:
        return f"did you mean {close[0]!r}?"
    return f"known {what}: {', '.join(names)}" if names else f"no {what} are declared"


def indefinite(word: str) -> str:
    """`word` with its indefinite article: `a performance`, `an adversarial`."""
    return f"{'an' if word[:1] in tuple('aeiou') else 'a'} {word}"
