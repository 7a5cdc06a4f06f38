"""The hostile fixture suite (hostile/suite) and what its sessions need: real Chromium and Node."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_tcab.run.browser.discovery import find_chromium
from pytest_tcab.run.judge.runtime import find_node

NEEDS_BROWSER_AND_JUDGE = [
    pytest.mark.browser,
    pytest.mark.skipif(find_chromium(None) is None, reason="needs Chromium"),
    pytest.mark.skipif(find_node() is None, reason="needs Node for the judge runtime"),
]
HOSTILE = Path(__file__).parent / "hostile"
STUCK = "test-cases/end-to-end/easy/stuck/v1.0.0"
"""The case `stuck`: a game whose simulation never advances (its motion verdicts fail honestly)."""
