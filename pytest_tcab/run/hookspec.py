"""The hooks run mode calls: how families of run items are found, when a run ends, and what a
run's results.json entry holds.

Registered by `pytest_tcab.plugin` in `pytest_addhooks`; implement them in a `conftest.py`
or a plugin with `@pytest.hookimpl`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING
from typing import Any

import pluggy

if TYPE_CHECKING:
    import pytest

    from pytest_tcab.run.context import RunContext

hookspec = pluggy.HookspecMarker("pytest")


@hookspec
def pytest_tcab_run_items(run: RunContext, parent: pytest.Collector) -> Iterable[pytest.Item] | None:
    """The items one family contributes to a run, in their order; None when it has none.

    :param run: the run being collected: its resolved case (`run.case`), variant, engine and
        source tree, the build (`run.require_build()`, done once) and the loopback server.
    :param parent: the collector the items belong to (`Item.from_parent(parent, ...)`).

    The plugin's own families answer first, in the order of
    `pytest_tcab.run.families.RUN_FAMILIES`; a family added by a ``conftest.py`` or another
    plugin follows them. Subclass `pytest_tcab.run.item.RunItem` so an item carries the
    run's identity into results.json.

    Use in conftest plugins: a suite adds a family of its own, for example a check of a file
    every build must write::

        @pytest.hookimpl
        def pytest_tcab_run_items(run, parent):
            return [LicenseItem.from_parent(parent, name="license", run=run, key="license")]
    """


@hookspec
def pytest_tcab_run_finished(config: pytest.Config, run: RunContext) -> None:
    """The last item of `run` in this process has ended (its teardown done, its reports logged).

    Called where the run's items ran: the one process of a serial session, or the xdist worker
    that ran them all (`run.scheduling` never splits a run). What a run holds can be let go
    here. The teardown report of that item carries `report.tcab["run_finished"] = True`, so the
    process that writes results (the xdist controller included) knows the run is whole.
    """


@hookspec
def pytest_tcab_run_results(config: pytest.Config, run: dict[str, Any]) -> None:
    """A run's results.json entry has just been assembled: add keys to `run` (in place).

    :param run: the run as results.json will hold it (its identity, `build_digest`, `items`,
        `score`, `domains`, `errata`, ...). Called each time the run is assembled: at the end of
        the session, as each run of a sweep ends, and when `--tcab-merge` joins shards, so an
        implementation must give the same keys from the same inputs.

    The review wing answers it (`pytest_tcab.review.plugin`): it folds the operator's reviews of
    the run into its `review` key. Run mode never imports a plugin that implements it::

        @pytest.hookimpl
        def pytest_tcab_run_results(config, run):
            run["ticket"] = tickets.lookup(run["run"])
    """
