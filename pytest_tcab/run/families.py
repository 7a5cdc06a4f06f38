"""The families of run items: each a plugin answering `pytest_tcab_run_items`, registered once.

`run_items` asks every family for its items of a run; the plugin's own families are registered
on the first run collected (start-up stays light), a suite's `conftest.py` may add more.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from pytest_tcab.run.context import RunContext


def run_items(parent: pytest.Collector, run: RunContext) -> Iterator[pytest.Item]:
    """Every item of a run, in a stable order: each family's items, as `pytest_tcab_run_items` gives them."""
    register_run_families(parent.config)
    for items in parent.config.hook.pytest_tcab_run_items(run=run, parent=parent):
        yield from items


RUN_FAMILIES = (
    "pytest_tcab.run.sandbox.items",
    "pytest_tcab.run.wasm.performance",
    "pytest_tcab.run.wasm.tournament_items",
    "pytest_tcab.run.sandbox.toolchain",
    "pytest_tcab.run.judge.requirements",
    "pytest_tcab.run.browser.checks",
    "pytest_tcab.run.judge.drivers",
    "pytest_tcab.run.assets.items",
)
"""The plugin's own families of run items, in the order their items are listed."""
RUN_PLUGINS = ("pytest_tcab.run.item", "pytest_tcab.run.attempts", "pytest_tcab.run.context", "pytest_tcab.run.across",
               *RUN_FAMILIES)
"""Registered together on the first run: the item base's report hook, its attempts (retries, regrading), the
run's release, the builds begun across runs, then the families."""


def register_run_families(config: pytest.Config) -> None:
    """Register the plugin's families once, on the first run collected (start-up stays light).

    Their hookimpls are `tryfirst`, and pluggy calls the latest registered first among those,
    so registering in reverse makes the call order `RUN_FAMILIES`' and puts them before any
    family a conftest adds.
    """
    manager = config.pluginmanager
    for name in reversed(RUN_PLUGINS):
        if not manager.has_plugin(name):
            manager.register(importlib.import_module(name), name)


