"""Fixtures of the end-to-end plugin tests."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from suites import write_minimal_suite


@pytest.fixture
def minimal_suite(pytester: pytest.Pytester) -> Path:
    """Two clean cases (legacy and categories grammar) in the pytester directory."""
    return write_minimal_suite(pytester.path)


@pytest.fixture
def scratch(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The TMPDIR of the sessions a test grades (their runs' disks), short: Chromium's sockets live under it."""
    path = Path(tempfile.mkdtemp(prefix="cc-", dir="/tmp"))
    monkeypatch.setenv("TMPDIR", str(path))
    yield path
    shutil.rmtree(path, ignore_errors=True)
