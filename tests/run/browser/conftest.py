"""Real Chromium for the browser tests: one session, a loopback server for the fixture pages."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

# pytester's in-process runs drop the modules first imported inside them, and Playwright imported
# anew mixes two copies of its API classes (route handlers then receive raw implementation
# objects): loading it here keeps one copy for the whole session.
import playwright.sync_api  # noqa: F401
import pytest

from pytest_tcab.run.browser.discovery import NO_BROWSER_REASON
from pytest_tcab.run.browser.discovery import find_chromium
from pytest_tcab.run.browser.serve import StaticServer
from pytest_tcab.run.browser.session import BrowserSession
from pytest_tcab.run.judge.runtime import NO_NODE
from pytest_tcab.run.judge.runtime import JudgeRuntime
from pytest_tcab.run.judge.runtime import find_node

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext
    from playwright.sync_api import Page

PAGES = Path(__file__).parent / "pages"

CHROMIUM = find_chromium(None)
if CHROMIUM is None:
    pytest.skip(NO_BROWSER_REASON, allow_module_level=True)


@pytest.fixture(scope="session")
def pages_url() -> Iterator[str]:
    """Base URL (with trailing slash) of tests/run/browser/pages on the plugin's loopback server
    (the one a confined Chromium reaches: every StaticServer is served inside its namespace)."""
    with StaticServer(PAGES) as server:
        yield server.url


@pytest.fixture(scope="session")
def judge() -> Iterator[JudgeRuntime]:
    """The judge runtime (Node) validation scripts run in, as a session has one."""
    if find_node() is None:
        pytest.skip(NO_NODE)
    runtime = JudgeRuntime()
    try:
        yield runtime
    finally:
        runtime.close()


@pytest.fixture(scope="module")
def session() -> Iterator[BrowserSession]:
    """Module-scoped: pytester's in-process runs elsewhere start their own, one per thread at a time."""
    assert CHROMIUM is not None
    browser = BrowserSession(CHROMIUM, context_args={"locale": "en-US", "timezone_id": "UTC"})
    try:
        yield browser
    finally:
        browser.close()


@pytest.fixture
def context(session: BrowserSession) -> Iterator[BrowserContext]:
    context = session.new_context()
    try:
        yield context
    finally:
        context.close()


@pytest.fixture
def page(context: BrowserContext) -> Page:
    return context.new_page()
