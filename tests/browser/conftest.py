"""Real Chromium for the browser tests: one session, a loopback server for the fixture pages."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any

# pytester's in-process runs drop the modules first imported inside them, and Playwright imported
# anew mixes two copies of its API classes (route handlers then receive raw implementation
# objects): loading it here keeps one copy for the whole session.
import playwright.sync_api  # noqa: F401
import pytest

from pytest_tcab.run.browser import NO_BROWSER_REASON
from pytest_tcab.run.browser import BrowserSession
from pytest_tcab.run.browser import find_chromium

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext
    from playwright.sync_api import Page

PAGES = Path(__file__).parent / "pages"

CHROMIUM = find_chromium(None)
if CHROMIUM is None:
    pytest.skip(NO_BROWSER_REASON, allow_module_level=True)


class _PagesHandler(SimpleHTTPRequestHandler):
    """Serves the fixture pages with module scripts typed right and without request logging."""

    def guess_type(self, path: str | os.PathLike[str]) -> str:
        # The host's mime database may lack .mjs, and Chromium refuses untyped module scripts.
        if str(path).endswith((".mjs", ".js")):
            return "text/javascript"
        return super().guess_type(path)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="session")
def pages_url() -> Iterator[str]:
    """Base URL (with trailing slash) of tests/browser/pages on a loopback server."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_PagesHandler, directory=str(PAGES)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


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
