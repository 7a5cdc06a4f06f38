"""session: Chromium's profile stays the size it starts at, however long the session and whatever its pages store."""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_tcab.run.browser.discovery import find_chromium
from pytest_tcab.run.browser.session import METRICS_PLACEHOLDERS
from pytest_tcab.run.browser.session import BrowserSession
from pytest_tcab.run.sandbox.disk import tree_size
from pytest_tcab.run.sandbox.sandbox import Sandbox
from pytest_tcab.run.sandbox.steps import build_static

SPARE_DELAY_S = 90
"""When Chromium writes its 4 MiB spare metrics file, counted from its start (components/metrics)."""
PAST_IT_S = SPARE_DELAY_S + 20
GROWTH = 2**20
"""What a profile may gain over a session: its databases' first pages, never a 4 MiB metrics file."""
HOARD = """async () => {
  const chunk = "x".repeat(2 ** 20);
  for (let i = 0; i < 2; i++) localStorage.setItem("k" + i, chunk);
  const db = await new Promise((done) => { const open = indexedDB.open("hoard", 1);
    open.onupgradeneeded = () => open.result.createObjectStore("s"); open.onsuccess = () => done(open.result); });
  await new Promise((done) => { const tx = db.transaction("s", "readwrite");
    tx.objectStore("s").put(chunk.repeat(2), "big"); tx.oncomplete = done; });
}"""
"""A page that tries to grow the profile: 2 MiB of localStorage and 2 MiB of IndexedDB on each visit."""


@pytest.fixture
def fresh() -> Iterator[BrowserSession]:
    """A session of the test's own: the profile's age is counted from its launch."""
    chromium = find_chromium(None)
    assert chromium is not None  # the conftest skips the folder without one
    browser = BrowserSession(chromium)
    try:
        yield browser
    finally:
        browser.close()


def _metrics_files(folder: Path) -> list[str]:
    return [str(path) for path in folder.rglob("BrowserMetrics*") if path.is_file() and path.stat().st_size]


def test_chromium_starts_with_its_metrics_files_placed_where_it_cannot_write_them(fresh: BrowserSession) -> None:
    profile = next(fresh.profiles.glob("playwright_chromiumdev_profile-*"))
    assert (profile / METRICS_PLACEHOLDERS[1]).is_dir()
    assert not _metrics_files(fresh.profiles)


def test_a_sessions_profile_does_not_grow_past_chromiums_metrics_delay(fresh: BrowserSession, pages_url: str) -> None:
    """Items (each page hoarding 4 MiB of storage) until well past the moment Chromium writes its spare
    metrics file: the profile holds what it held at the third item, give or take its databases' pages."""
    started = time.monotonic()
    sizes = []
    while time.monotonic() - started < PAST_IT_S or len(sizes) < 4:
        with fresh.item("hoard", lambda: None):
            page = fresh.page(origin=pages_url)
            page.goto(pages_url)
            page.evaluate(HOARD)
        sizes.append(tree_size(fresh.profiles))
        time.sleep(2)
    assert sizes[-1] - sizes[2] < GROWTH, [size // 1024 for size in sizes]
    assert not _metrics_files(fresh.profiles)


def test_a_build_that_knows_the_profiles_path_cannot_write_metrics_files_into_it(fresh: BrowserSession,
                                                                                  tmp_path: Path) -> None:
    """The profile is in the session's scratch, which no build step is shown: a step handed its exact
    path writes into its own private /tmp at most, and the profile holds no file of the build's."""
    profile = next(fresh.profiles.glob("playwright_chromiumdev_profile-*"))
    (tmp_path / "impl").mkdir()
    (tmp_path / "impl" / "index.html").write_text("<p>game</p>")
    (tmp_path / "work").mkdir()
    grow = (f"mkdir -p {profile}/BrowserMetrics; head -c 8388608 /dev/zero > {profile}/BrowserMetrics/BrowserMetrics-1.pma; "
            f"rmdir {profile}/BrowserMetrics-spare.pma; head -c 8388608 /dev/zero > {profile}/BrowserMetrics-spare.pma; "
            "mkdir -p dist && cp index.html dist/")
    before = tree_size(fresh.profiles)
    result = build_static(tmp_path / "impl", "", grow, tmp_path / "work", 60, Sandbox(shutil.which("bwrap"), "none"))
    assert result.ok, result.message  # it wrote into a /tmp of its own
    assert (profile / METRICS_PLACEHOLDERS[1]).is_dir()
    assert not _metrics_files(fresh.profiles)
    assert tree_size(fresh.profiles) - before < GROWTH
