"""Chromium's processes see the build steps' mount view: a file planted in the suite, the results
folder, the checkout or the caller's home is not there for the browser, by path or through
another process's `/proc/PID/root`; the system's files are (the control)."""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_tcab.run.browser.session import BrowserSession
from tests.run.browser.conftest import CHROMIUM

pytestmark = pytest.mark.browser

CHECKOUT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Path]]:
    """One secret file in each place the browser must not see; removed afterwards."""
    secret = secrets.token_hex(8)
    suite = tmp_path_factory.mktemp("suite")
    out = tmp_path_factory.mktemp("out")
    places = {"suite": suite, "out": out, "checkout": CHECKOUT, "home": Path.home()}
    under_system = Path("/opt") / f"tcab-suite-{secret}"  # a suite inside the system view: covered by a tmpfs
    if os.access("/opt", os.W_OK):
        under_system.mkdir()
        places["suite under /opt"] = under_system
    files = {name: folder / f".tcab-planted-{secret}.txt" for name, folder in places.items()}
    for name, path in files.items():
        path.write_text(f"planted in the {name}", encoding="utf-8")
    try:
        yield files
    finally:
        for path in files.values():
            path.unlink(missing_ok=True)
        if under_system.is_dir():
            under_system.rmdir()


def test_without_the_view_the_browser_reads_them(planted: dict[str, Path]) -> None:
    # The control, first (one session per thread at a time): unconfined, every planted file reads back.
    assert CHROMIUM is not None
    browser = BrowserSession(CHROMIUM, confine=False)
    try:
        assert {place: _read(browser, path.as_uri()) for place, path in planted.items()} == {
            place: f"planted in the {place}" for place in planted}
    finally:
        browser.close()


@pytest.fixture(scope="module")
def confined(planted: dict[str, Path]) -> Iterator[BrowserSession]:
    assert CHROMIUM is not None
    hidden = tuple(Path(os.path.realpath(path.parent)) for path in planted.values())
    browser = BrowserSession(CHROMIUM, hidden=hidden)
    try:
        yield browser
    finally:
        browser.close()


def _read(browser: BrowserSession, url: str) -> str | None:
    """What a page shows at `url`, or None when the browser cannot open it; in a context of its
    own, without the loopback guard (the guard would abort file:// before the file system could)."""
    from playwright.sync_api import Error

    context = browser.browser.new_context()
    try:
        page = context.new_page()
        try:
            page.goto(url)
        except Error:
            return None
        return page.inner_text("body")
    finally:
        context.close()


@pytest.mark.parametrize("place", ["suite", "out", "checkout", "home", "suite under /opt"])
def test_the_browser_cannot_read_a_planted_file(confined: BrowserSession, planted: dict[str, Path], place: str) -> None:
    if place not in planted:
        pytest.skip("/opt is not writable here: no suite can be planted inside the system view")
    path = planted[place]
    assert path.read_text(encoding="utf-8") == f"planted in the {place}"  # there, for this process
    assert _read(confined, path.as_uri()) is None
    # Nor through a process of the host: /proc/PID/root of the test process is its whole file system.
    assert _read(confined, f"file:///proc/{os.getpid()}/root{path}") is None
    assert _read(confined, f"file:///proc/{os.getppid()}/root{path}") is None


def test_the_system_is_there(confined: BrowserSession) -> None:
    # The control: the same reads reach a file of the system view, so a None above is the view's doing.
    shown = _read(confined, "file:///usr/share/common-licenses/")
    assert shown is not None and "GPL" in shown
