"""The versions of the tools that graded a run (`graded_by` in results.json and sweep.json).

Shards on several machines can grade with different Chromium, Node, wasmtime or plugin
versions, and a pixel check or a fuel figure can move with them; so each run says what graded
it, and the leaderboard marks a cell whose runs were graded by different versions. Worked out
in the process that ran the run's items (an xdist worker): Chromium's version is known there
once a browser item of the run has used the session's browser; Node's is the judge's.
"""

from __future__ import annotations

import platform
from functools import cache
from typing import Any

import pytest

_browser_versions_key = pytest.StashKey[dict[str, str]]()
"""Chromium's version, by the run whose browser item used it (in this process)."""


def note_browser(item: pytest.Item, run: str) -> None:
    """A browser item of `run` ran: remember the version of the Chromium it ran in."""
    browser = getattr(item, "funcargs", {}).get("tcab_browser")
    version = getattr(getattr(browser, "browser", None), "version", None)
    if isinstance(version, str):
        item.config.stash.setdefault(_browser_versions_key, {})[run] = version


def graded_by(config: pytest.Config, run: str) -> dict[str, str]:
    """The versions that graded `run`: this process's, with Chromium's when the run used it."""
    found = dict(_process_versions())
    chromium = config.stash.get(_browser_versions_key, {}).pop(run, None)
    if chromium is not None:
        found["chromium"] = chromium
    return dict(sorted(found.items()))


@cache
def _process_versions() -> tuple[tuple[str, str], ...]:
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version

    from pytest_tcab.run.judge.runtime import find_node

    found = {"python": platform.python_version()}
    for name in ("pytest-tcab", "pytest", "playwright", "wasmtime"):
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            pass
    node = find_node()
    if node is not None:
        found["node"] = node.version.lstrip("v")
    return tuple(found.items())


def mixed_tools(rows: list[dict[str, Any]]) -> list[str]:
    """`chromium 120.0.1` for each version of a tool the rows' runs were graded by differently
    (a tool a run does not name, say Chromium for a run with no browser item, differs from none)."""
    seen: dict[str, set[str]] = {}
    for row in rows:
        for tool, version in (row.get("graded_by") or {}).items():
            seen.setdefault(str(tool), set()).add(str(version))
    return [f"{tool} {version}" for tool, versions in sorted(seen.items()) if len(versions) > 1
            for version in sorted(versions)]
