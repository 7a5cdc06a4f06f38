"""Shared fixtures: the bundled example suite as a fixture, hypothesis profiles, and Ctrl-C for
the processes the tests start."""

from __future__ import annotations

import os
import shutil
import signal
from pathlib import Path

import pytest
from hypothesis import HealthCheck
from hypothesis import settings

REPO = Path(__file__).resolve().parent.parent
EXAMPLE_SUITE = REPO / "example-suite"

# CI time is shared: the "ci" profile keeps property tests to a bounded number of examples.
settings.register_profile(
    "ci", max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", max_examples=100, deadline=None)
settings.register_profile("thorough", max_examples=1000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))


def pytest_configure(config: pytest.Config) -> None:
    """Let Ctrl-C reach the sessions and review pages the tests start and interrupt (SIGINT).

    A shell without job control starts a background command (`scripts/test &` in a script) with
    SIGINT ignored; every process below inherits that, Python leaves an ignored SIGINT ignored,
    and an interrupted session would run on until its build's timeout. A handler of this process,
    unlike an ignored signal, is reset to the default action in each program it starts."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


_NOT_SUITE_MATERIAL = shutil.ignore_patterns("node_modules", "dist", "target", "__pycache__")


def copy_example_suite(dest: Path) -> Path:
    """A private copy of example-suite/ (without build output) that a test may break."""
    target = dest / "example-suite"
    shutil.copytree(EXAMPLE_SUITE, target, ignore=_NOT_SUITE_MATERIAL, symlinks=True)
    return target


@pytest.fixture
def example_suite(pytester: pytest.Pytester) -> Path:
    """The example suite copied into the pytester directory."""
    return copy_example_suite(pytester.path)


@pytest.fixture
def pytester(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """pytester, with faulthandler left out of every inner session.

    Once this process has a wasmtime engine, an in-process session's faulthandler would
    re-install its own fatal-signal handlers over wasmtime's on unconfigure, and the next
    wasm trap would kill the process. pytester clears PYTEST_ADDOPTS when it starts, so it
    is set here, after. GitHub's variables are cleared.
    """
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:faulthandler")
    # The project's own CI runs under GitHub Actions: an inner session must not annotate the
    # outer job or append to its step summary, unless a test asks for it.
    for name in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT", "GITHUB_WORKSPACE"):
        monkeypatch.delenv(name, raising=False)
    return pytester
