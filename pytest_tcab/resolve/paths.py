"""The path rules every manifest key shares: contained in the version folder, and present."""

from __future__ import annotations

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
        target.stat()
    except FileNotFoundError:
        pass
    except OSError as exc:  # a name too long, a loop of symlinks, a path through a file, no permission
        return None, [doc.problem(key, f"{what} {relative!r} cannot be used: {refusal(exc)}",
                                  f"name a {_WANTED[expect]} under {_show_folder(folder)} that can be read")]
    if expect == "file" and not target.is_file():
        found = "is a directory" if target.is_dir() else "does not exist"
        return None, [doc.problem(key, f"{what} {relative!r} {found}; expected a file under {_show_folder(folder)}")]
    if expect == "dir" and not target.is_dir():
        found = "is a file" if target.exists() else "does not exist"
        return None, [doc.problem(key, f"{what} {relative!r} {found}; expected a directory under {_show_folder(folder)}")]
    if expect == "any" and not target.exists():
        return None, [doc.problem(key, f"{what} {relative!r} does not exist under {_show_folder(folder)}")]
    return target, []


def _show_folder(folder: Path) -> str:
    return f"{folder.name}/"
