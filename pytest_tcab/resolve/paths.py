"""The path rules every manifest key shares: contained in the version folder, and present."""

from __future__ import annotations

import difflib
import re
import stat
from pathlib import Path
from typing import Literal

from pytest_tcab.errors import KeyPath
from pytest_tcab.errors import Problem
from pytest_tcab.paths import PathEscapes
from pytest_tcab.paths import contained
from pytest_tcab.paths import refusal
from pytest_tcab.toml import TomlDocument

Expect = Literal["file", "dir", "any"]

_WANTED: dict[Expect, str] = {"file": "file", "dir": "directory", "any": "file or directory"}


def check_path(
    doc: TomlDocument, folder: Path, key: KeyPath, relative: str, expect: Expect, what: str
) -> tuple[Path | None, list[Problem]]:
    """Resolve `relative` against `folder`; a problem if it escapes or is not what `what` needs."""
    try:
        target = contained(folder, relative)
    except PathEscapes as exc:
        return None, [doc.problem(key, f"{what} {relative!r} {exc}", f"write it relative to, and inside, {_show_folder(folder)}")]
    try:
        mode: int | None = target.stat().st_mode  # one stat answers every question below
    except FileNotFoundError:
        mode = None
    except OSError as exc:  # a name too long, a loop of symlinks, a path through a file, no permission
        return None, [doc.problem(key, f"{what} {relative!r} cannot be used: {refusal(exc)}",
                                  f"name a {_WANTED[expect]} under {_show_folder(folder)} that can be read")]
    is_dir = mode is not None and stat.S_ISDIR(mode)
    if expect == "file" and not (mode is not None and stat.S_ISREG(mode)):
        found = "is a directory" if is_dir else "does not exist"
        return None, [doc.problem(key, f"{what} {relative!r} {found}; expected a file under {_show_folder(folder)}",
                                  _sibling_hint(target, relative, expect))]
    if expect == "dir" and not is_dir:
        found = "is a file" if mode is not None else "does not exist"
        return None, [doc.problem(key, f"{what} {relative!r} {found}; expected a directory under {_show_folder(folder)}",
                                  _sibling_hint(target, relative, expect))]
    if expect == "any" and mode is None:
        return None, [doc.problem(key, f"{what} {relative!r} does not exist under {_show_folder(folder)}",
                                  _sibling_hint(target, relative, expect))]
    return target, []


def _sibling_hint(target: Path, relative: str, expect: Expect) -> str | None:
    """"did you mean ...?" from the entries beside the missing one that are of the expected kind."""
    try:
        siblings = [entry for entry in target.parent.iterdir() if entry.name != target.name
                    and (expect == "any" or (entry.is_dir() if expect == "dir" else entry.is_file()))]
    except OSError:  # the parent is missing or unreadable: nothing to suggest
        return None
    close = difflib.get_close_matches(target.name, [entry.name for entry in siblings], n=1, cutoff=0.6)
    if not close:
        return None
    head = relative.replace("\\", "/").rpartition("/")[0]
    return f"did you mean {(head + '/' if head else '') + close[0]!r}?"


def _show_folder(folder: Path) -> str:
    return f"{folder.name}/"


def dest_escapes(relative: str) -> str | None:
    """Why a path seeded into a run (which does not exist yet) would leave it; None when it stays."""
    if "\x00" in relative:
        return "contains a NUL character"
    if relative.startswith(("/", "\\")) or re.match(r"[A-Za-z]:", relative):
        return "is absolute"
    if ".." in relative.replace("\\", "/").split("/"):
        return "climbs out with '..'"
    return None


def dest_problems(doc: TomlDocument, key: KeyPath, relative: str, inside: str) -> list[Problem]:
    """A destination the run is seeded with (or the model writes) must stay `inside` the run."""
    escape = dest_escapes(relative)
    if escape is None:
        return []
    return [doc.problem(key, f"{relative!r} {escape}", f"write it relative to, and inside, {inside}")]
