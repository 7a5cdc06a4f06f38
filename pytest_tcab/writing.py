"""Sessions that write files instead of testing (`--tcab-merge`, `--tcab-schemas`).

pytest still parses the options, configures the plugins and prints its summary, so such a
command reads as every other pytest command does; it collects and runs nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest


class WritingSession:
    """Registered by plugin.py: the session's test loop is `write`, and the session ends OK once
    something was written (nothing was collected, and nothing was meant to be)."""

    def __init__(self) -> None:
        self.written: list[Path] = []

    def write(self) -> list[Path]:
        """Write the session's files; returns their paths."""
        raise NotImplementedError

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection(self, session: pytest.Session) -> bool:
        return True

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> bool:
        self.written = self.write()
        return True

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self.written:
            session.exitstatus = pytest.ExitCode.OK
