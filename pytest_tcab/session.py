"""Per-session state: the suites in play, kept in the config stash."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from pytest_tcab.options import SUITE_INI

if TYPE_CHECKING:
    from pytest_tcab.suite import Suite

suites_key = pytest.StashKey["dict[Path, Suite]"]()


def configured_root(config: pytest.Config) -> Path | None:
    """The suite root named by `--tcab-suite`, or by the ini option relative to the ini file."""
    given = config.getoption("tcab_suite")
    if given:
        return Path(given).resolve()
    ini = config.getini(SUITE_INI)
    if ini:
        base = config.inipath.parent if config.inipath else config.rootpath
        return (base / str(ini)).resolve()
    return None


def run_dirs(config: pytest.Config) -> list[Path]:
    """The folders `--tcab-run` names, in the order given (the option may be repeated)."""
    return [Path(value) for value in config.getoption("tcab_run") or ()]


def suite_for(config: pytest.Config, path: Path) -> Suite:
    """The suite `path` belongs to: the configured one when it holds `path`, else found upward."""
    from pytest_tcab.suite import Suite
    from pytest_tcab.suite import find_root

    root = configured_root(config)
    if root is None or not _is_under(path, root):
        root = find_root(path)
    suites = config.stash.setdefault(suites_key, {})
    if root not in suites:
        suites[root] = Suite(root)
    return suites[root]


def _is_under(path: Path, root: Path) -> bool:
    try:
        path.resolve().relative_to(root)
    except ValueError:
        return False
    return True


def experimental_allowed(config: pytest.Config) -> bool:
    flag = os.environ.get("TCAB_BACKEND_ALLOW_EXPERIMENTAL", "").strip().lower()
    return bool(config.getoption("tcab_experimental")) or flag in ("1", "true", "yes", "on")
