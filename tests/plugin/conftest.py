"""Fixtures of the end-to-end plugin tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from suites import write_minimal_suite


@pytest.fixture
def minimal_suite(pytester: pytest.Pytester) -> Path:
    """Two clean cases (legacy and categories grammar) in the pytester directory."""
    return write_minimal_suite(pytester.path)
