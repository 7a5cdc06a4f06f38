"""The review page as a reviewer runs it: the example's carom-base run graded once (a subprocess, as a
user runs it), its results copied per test (with hostile builds beside it when a test asks), the page's
server in a subprocess of its own (`--tcab-review`, ended by Ctrl-C), and real Chromium."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any

import pytest

from pytest_tcab.run.browser.discovery import NO_BROWSER_REASON
from pytest_tcab.run.browser.discovery import find_chromium
from tests.conftest import EXAMPLE_SUITE
from tests.conftest import REPO

CHROMIUM = find_chromium(None)
RUN = "carom-base"
REVIEWER = "ana"
START_S = 90.0
"""How long the server may take to print its URL (pytest's start-up and the suite's resolution) on a loaded host."""
STOP_S = 30.0


@pytest.fixture(scope="session")
def graded_carom(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example's produced Carom build graded once, into its own --tcab-out (the run fails one verdict)."""
    out = tmp_path_factory.mktemp("graded") / "carom"
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", f"--tcab-suite={EXAMPLE_SUITE}",
         f"--tcab-run={EXAMPLE_SUITE / 'runs' / RUN}", f"--tcab-out={out}", "-q"],
        cwd=REPO, capture_output=True, text=True, timeout=600, check=False)
    assert result.returncode == 1, result.stdout[-3000:] + result.stderr[-3000:]  # 1: spin.stationary, the flaw
    (run,) = json.loads((out / "results.json").read_text())["runs"]
    assert run["site"] == {"copied": True, "path": "site", "files": 3, "bytes": run["site"]["bytes"], "skipped": []}
    assert (out / RUN / "site" / "index.html").is_file()  # the served site, kept beside the run's media
    return out


def copy_results(graded: Path, dest: Path, hostile: dict[str, str] | None = None) -> Path:
    """The graded results copied to `dest` (their media paths moved along), plus one run per hostile
    build: carom-base's results under another name, whose site copy is the given page."""
    shutil.copytree(graded, dest)
    path = dest / "results.json"
    data = json.loads(path.read_text().replace(str(graded), str(dest)))
    (carom,) = data["runs"]
    for name, page in (hostile or {}).items():
        data["runs"].append({**carom, "run": name})
        site = dest / name / "site"
        site.mkdir(parents=True)
        (site / "index.html").write_text(page)
    path.write_text(json.dumps(data, indent=2))
    return dest


@dataclass
class ReviewPage:
    """The page's server, running in a subprocess."""

    url: str
    results: Path
    reviews: Path
    process: subprocess.Popen[str]
    reader: threading.Thread
    output: list[str] = field(default_factory=list)

    @property
    def origin(self) -> str:
        return self.url.rstrip("/")

    def review_file(self, run: str = RUN) -> Path:
        return self.reviews / run / f"{REVIEWER}.md"

    def history(self, run: str = RUN) -> list[dict[str, Any]]:
        path = self.reviews / run / f"{REVIEWER}.history.jsonl"
        return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def start_page(results: Path, reviews: Path, *extra: str) -> ReviewPage:
    process = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", f"--tcab-suite={EXAMPLE_SUITE}",
         f"--tcab-review={results}", f"--tcab-reviews={reviews}", f"--tcab-reviewer={REVIEWER}", *extra],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"})
    output: list[str] = []
    reader = threading.Thread(target=lambda: output.extend(iter(process.stdout.readline, "")), daemon=True)  # type: ignore[union-attr]
    reader.start()
    deadline = time.monotonic() + START_S
    while time.monotonic() < deadline:
        found = next((m for line in list(output) if (m := re.search(r"review page: (http://127\.0\.0\.1:\d+/)", line))),
                     None)
        if found:
            return ReviewPage(found[1], results, reviews, process, reader, output)
        if process.poll() is not None:
            break
        time.sleep(0.1)
    process.kill()
    process.wait()
    reader.join(STOP_S)
    process.stdout.close()  # type: ignore[union-attr]
    raise AssertionError("the review page did not start:\n" + "".join(output))


def stop_page(page: ReviewPage) -> str:
    """Ctrl-C, as a reviewer ends it: a clean exit (status 0), no traceback."""
    page.process.send_signal(signal.SIGINT)
    try:
        code = page.process.wait(STOP_S)
    except subprocess.TimeoutExpired:
        page.process.kill()
        raise
    finally:
        page.reader.join(STOP_S)  # the reader takes the last lines
        page.process.stdout.close()  # type: ignore[union-attr]
    text = "".join(page.output)
    assert code == 0, text
    assert "Traceback" not in text and "KeyboardInterrupt" not in text, text
    return text


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if CHROMIUM is None:
        pytest.skip(NO_BROWSER_REASON)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM.path), args=["--no-sandbox"])
        yield launched
        launched.close()


@pytest.fixture
def context(browser: Any) -> Iterator[Any]:
    opened = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    yield opened
    opened.close()
