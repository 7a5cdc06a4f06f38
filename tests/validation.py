"""Helpers of the validation-driver tests: the gauge fixture case, whole sessions run once per module."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# pytester's in-process runs drop the modules first imported inside them, and Playwright imported
# anew mixes two copies of its API classes (route handlers then receive raw implementation
# objects): loading it here keeps one copy for every run of the modules that use these helpers.
import playwright.sync_api  # noqa: F401
import pytest

GAUGE = Path(__file__).parent / "gauge"
GAUGE_VERSION = Path("suite/test-cases/end-to-end/easy/gauge/v1.0.0")
UNREACHABLE_URL = "http://192.0.2.1/"
"""TEST-NET-1: what the offline driver fetches when a test gives it no live host server."""


def gauge_project(dest: Path, host_url: str = UNREACHABLE_URL) -> Path:
    """The gauge suite under `dest`, and its reference implementation copied as the run `game/`."""
    shutil.copytree(GAUGE / "suite", dest / "suite")
    offline = dest / GAUGE_VERSION / "validation/offline.mjs"
    offline.write_text(offline.read_text(encoding="utf-8").replace("__HOST_URL__", host_url), encoding="utf-8")
    game = dest / "game"
    shutil.copytree(dest / GAUGE_VERSION / "reference-impl/base", game)
    (game / ".tcab").mkdir()
    (game / ".tcab/run.toml").write_text('case = "gauge"\n', encoding="utf-8")
    return dest


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def lines(*patterns: str) -> list[str]:
    """fnmatch patterns where `[` is literal (node ids are full of them); `*` stays a wildcard."""
    return [pattern.replace("[", "[[]") for pattern in patterns]


@dataclass(frozen=True)
class Session:
    """A finished pytest session over a project folder: its output and what it wrote."""

    path: Path
    result: pytest.RunResult

    def results(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads((self.path / "out/results.json").read_text(encoding="utf-8"))
        return data

    def run(self, label: str | None = None) -> dict[str, Any]:
        """One run of results.json: the only one, or the one labelled `label`."""
        runs = self.results()["runs"]
        if label is None:
            assert len(runs) == 1, [run["run"] for run in runs]
            return dict(runs[0])
        return dict(next(run for run in runs if run["run"] == label))

    def items(self, kind: str = "validate", label: str | None = None) -> dict[str, dict[str, Any]]:
        """The items of one kind of a run, by id."""
        return {item["id"]: item for item in self.run(label)["items"] if item["kind"] == kind}


def run_session(path: Path, *args: str) -> Session:
    """Run pytest over `path` in a child process, as a user would.

    Module-scoped fixtures use it: pytester is per test, and one session (one build, one
    Chromium) answers many assertions.
    """
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--tcab-out=out", *args],
                          check=False, cwd=path, capture_output=True, text=True, timeout=600)
    result = pytest.RunResult(done.returncode, done.stdout.splitlines(), done.stderr.splitlines(),
                              time.monotonic() - start)
    return Session(path, result)


def ffprobe(path: Path) -> dict[str, Any]:
    """What Debian's ffprobe reads from a media file (the test is skipped without it)."""
    found = shutil.which("ffprobe")
    if found is None:
        pytest.skip("ffprobe (Debian ffmpeg) is needed to decode the clip")
    probe = subprocess.run([found, "-v", "error", "-show_streams", "-show_format", "-of", "json", str(path)],
                           check=True, capture_output=True, text=True)
    data: dict[str, Any] = json.loads(probe.stdout)
    return data
