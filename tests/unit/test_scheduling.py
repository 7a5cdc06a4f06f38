"""Which node ids pytest-xdist must keep on one worker: a run's, read from the id alone."""

from __future__ import annotations

import pytest

pytest.importorskip("xdist")

from pytest_tcab.run.scheduling import run_scope  # noqa: E402


@pytest.mark.parametrize(("nodeid", "scope"), [
    ("runs/a/.tcab/run.toml::build", "runs/a/.tcab/run.toml"),
    ("runs/a/.tcab/run.toml::validate[spin.moving]", "runs/a/.tcab/run.toml"),
    (".tcab/run.toml::check[title]", ".tcab/run.toml"),
    ("cases/pong/v2.0.0/test-case.toml::reference-frenzy::check[title]", "cases/pong/v2.0.0/test-case.toml::reference-frenzy"),
    # Everything else is scheduled as xdist would: its own unit.
    ("cases/pong/v2.0.0/test-case.toml::resolve[base]", None),
    ("cases/pong/v2.0.0/test-case.toml::reference-frenzy", None),
    ("tests/test_x.py::test_reference", None),
    ("runs/a/run.toml::build", None),
    ("runs/a/x.tcab/run.toml::build", None),
])
def test_run_scope(nodeid: str, scope: str | None) -> None:
    assert run_scope(nodeid) == scope
