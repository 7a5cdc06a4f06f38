"""Under pytest-xdist, every item of one run goes to one worker.

A run is built, served and snapshotted once, and the process that runs its last item knows the
run has ended (`pytest_tcab_run_finished`). xdist's own `--dist loadgroup` groups by appending
`@<group>` to each item's node id, which pytest 9.2 no longer lets take effect
(pytest-xdist#1386); so the plugin does not rely on it: its scheduler reads the run from the
node id itself, which every supported pytest and xdist leave alone. Imported only by
pytest-xdist's controller, when it asks for a scheduler.
"""

from __future__ import annotations

from importlib.metadata import version
from typing import Any

import pytest
from xdist.scheduler import LoadGroupScheduling

from pytest_tcab.author import REFERENCE_RUN_PREFIX
from pytest_tcab.runs import RUN_FILE

REGROUPED_MODES = frozenset({"load", "loadgroup", "worksteal"})
"""The `--dist` modes that would split a run's items between workers. `loadscope` and
`loadfile` already keep a run together (its items share their parent); `each` and `no` are
left as asked."""


class RunScheduling(LoadGroupScheduling):
    """xdist's `loadgroup` scheduling, with each run's items one work unit: the rest of the
    session is spread item by item (or by its own `xdist_group`, where pytest still lets it act)."""

    def _split_scope(self, nodeid: str) -> str:
        return run_scope(nodeid) or super()._split_scope(nodeid)


def run_scope(nodeid: str) -> str | None:
    """The run a node id belongs to, or None for any other item.

    A run's items sit under its `.tcab/run.toml` (`runs/a/.tcab/run.toml::build`), a reference
    run's under its case file's `reference-<variant>` collector
    (`.../test-case.toml::reference-base::check[title]`)."""
    file, _, rest = nodeid.partition("::")
    if file == RUN_FILE.as_posix() or file.endswith(f"/{RUN_FILE.as_posix()}"):
        return file
    collector, nested, _ = rest.partition("::")
    if nested and collector.startswith(REFERENCE_RUN_PREFIX):
        return f"{file}::{collector}"
    return None


def scheduler_for(config: pytest.Config, log: Any) -> RunScheduling | None:
    """The run-keeping scheduler for a tcab session in a mode that would split runs, else None."""
    from pytest_tcab.session import configured_root

    if config.getvalue("dist") not in REGROUPED_MODES or configured_root(config) is None:
        return None
    if not callable(getattr(LoadGroupScheduling, "_split_scope", None)):
        # Said loudly: a silent fallback would build every run once per worker.
        raise pytest.UsageError(
            f"pytest-xdist {version('pytest-xdist')} has no LoadGroupScheduling._split_scope, which "
            "pytest-tcab overrides to keep a run on one worker; use pytest-xdist<4 or --dist loadscope")
    return RunScheduling(config, log)
