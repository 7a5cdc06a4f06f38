"""What graded a run: the versions of the tools (`graded_by`) and the options that can change a
verdict or a figure (`graded_with`), in results.json and sweep.json.

Shards on several machines can grade with different Chromium, Node, wasmtime or plugin
versions, and a pixel check or a fuel figure can move with them; so each run says what graded
it, and the leaderboard marks a cell whose runs were graded by different versions. Worked out
in the process that ran the run's items (an xdist worker): Chromium's version is known there
once a browser item of the run has used the session's browser; Node's is the judge's. Two shards
graded with different caps, timeouts, viewport, media mode, network or sandbox options differ as
much: a build past a smaller cap fails, a smaller viewport moves every pixel check.
"""

from __future__ import annotations

import json
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


GRADING_OPTIONS = ("tcab_build_memory", "tcab_build_disk", "tcab_build_processes", "tcab_build_timeout",
                   "tcab_page_memory", "tcab_driver_timeout", "tcab_wasm_timeout", "tcab_viewport", "tcab_max_diff",
                   "tcab_strict", "tcab_media", "tcab_build_network", "tcab_no_sandbox")
"""The options (by dest) that can change a verdict or a figure: a run's `graded_with`, named without `tcab_`."""


def graded_with(config: pytest.Config) -> dict[str, Any]:
    """The grading options of this session, as `graded_with` records them (an option this version
    does not have is null; the viewport as `WxH`)."""
    from pytest_tcab.run.browser.session import DEFAULT_VIEWPORT

    found: dict[str, Any] = {}
    for dest in GRADING_OPTIONS:
        value = config.getoption(dest, None)
        if dest == "tcab_viewport":
            value = "x".join(str(side) for side in (value or DEFAULT_VIEWPORT))
        found[dest.removeprefix("tcab_")] = value
    return found


def option_flag(name: str) -> str:
    """`--tcab-build-memory` for the `graded_with` key `build_memory`."""
    return "--tcab-" + name.replace("_", "-")


def differing_options(records: list[dict[str, Any]]) -> dict[str, list[str]]:
    """Each option the `graded_with` records disagree on, with the values they hold (as JSON text;
    an option a record lacks, from an older version, is not counted against it)."""
    seen: dict[str, set[str]] = {}
    for record in records:
        for name, value in record.items():
            seen.setdefault(str(name), set()).add(json.dumps(value))
    return {name: sorted(values) for name, values in sorted(seen.items()) if len(values) > 1}


def mixed_options(rows: list[dict[str, Any]]) -> list[str]:
    """`--tcab-build-memory=536870912` for each value of an option the rows' runs were graded with
    differently."""
    differing = differing_options([row["graded_with"] for row in rows if isinstance(row.get("graded_with"), dict)])
    return [f"{option_flag(name)}={value.strip(chr(34))}" for name, values in differing.items() for value in values]


def mixed_tools(rows: list[dict[str, Any]]) -> list[str]:
    """`chromium 120.0.1` for each version of a tool the rows' runs were graded by differently
    (a tool a run does not name, say Chromium for a run with no browser item, differs from none)."""
    seen: dict[str, set[str]] = {}
    for row in rows:
        for tool, version in (row.get("graded_by") or {}).items():
            seen.setdefault(str(tool), set()).add(str(version))
    return [f"{tool} {version}" for tool, versions in sorted(seen.items()) if len(versions) > 1
            for version in sorted(versions)]
