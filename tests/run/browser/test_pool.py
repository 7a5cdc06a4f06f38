"""Contexts lent to one item after another: reused, yet every item's page starts clean."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from pytest_tcab.run.browser.session import BrowserSession
from pytest_tcab.run.browser.session import Debugging

pytestmark = pytest.mark.browser

EVERY_KIND = ["localStorage", "sessionStorage", "cookie", "indexedDB", "cacheStorage"]


def _visit(session: BrowserSession, url: str, folder: Path | None = None) -> tuple[list[str], object]:
    """One item: what the page found left by earlier items, and the context it was lent."""
    with session.item("visit", lambda: folder):
        page = session.page()
        page.goto(url)
        found: list[str] = page.evaluate("() => window.__stored()")
        return found, page.context


def test_a_lent_context_is_reused_and_leaves_nothing_to_the_next_item(session: BrowserSession,
                                                                      pages_url: str) -> None:
    here = pages_url + "storage.html"
    elsewhere = here.replace("127.0.0.1", "localhost")  # another origin the guard lets through
    first, context = _visit(session, here)
    assert first == []
    again, _ = _visit(session, here)
    assert again == []  # without the cleaning it would be EVERY_KIND (test below)
    with session.item("two origins", lambda: None):
        page = session.page()
        page.goto(elsewhere)
        assert page.evaluate("() => window.__stored()") == []
        assert page.context is context  # the same context, lent again
    third, reused = _visit(session, elsewhere)
    assert third == [] and reused is context


def test_without_cleaning_a_page_would_find_everything_left(session: BrowserSession, pages_url: str) -> None:
    """The control: two pages of one context, no item in between, see what the first left."""
    with session.item("control", lambda: None):
        first = session.page()
        first.goto(pages_url + "storage.html")
        assert first.evaluate("() => window.__stored()") == []
        second = session.page()
        second.goto(pages_url + "storage.html")
        assert second.evaluate("() => window.__stored()") == [k for k in EVERY_KIND if k != "sessionStorage"]


def test_origins_never_share_a_context(session: BrowserSession, pages_url: str) -> None:
    with session.item("origins", lambda: None):
        build = session.page(origin="http://127.0.0.1:1/")
        mockups = session.page(origin="http://127.0.0.1:2/")
        anywhere = session.page()
        assert len({build.context, mockups.context, anywhere.context}) == 3


@pytest.mark.parametrize("failing", [False, True], ids=["passing", "failing"])
def test_an_item_keeps_its_trace_and_failure_screenshot_as_the_mode_says(session: BrowserSession, pages_url: str,
                                                                         tmp_path: Path, failing: bool) -> None:
    kept = {}
    for mode in ("on", "retain-on-failure", "off"):
        folder = tmp_path / mode
        try:
            with session.item(mode, lambda folder=folder: folder, Debugging(tracing=mode)) as scope:
                session.page().goto(pages_url + "game.html")
                if failing:
                    raise AssertionError("the item failed")
        except AssertionError:
            pass
        kept[mode] = scope.kept
    traced = {mode for mode, figures in kept.items() if "trace" in figures}
    assert traced == ({"on", "retain-on-failure"} if failing else {"on"})
    for mode in traced:
        trace = Path(kept[mode]["trace"])
        assert trace == tmp_path / mode / "trace.zip"
        with zipfile.ZipFile(trace) as archive:  # what `playwright show-trace` opens
            names = archive.namelist()
            assert "trace.trace" in names and "trace.network" in names
            assert b'"type":"context-options"' in archive.read("trace.trace").replace(b" ", b"")
    shots = {mode for mode, figures in kept.items() if "failure_screenshot" in figures}
    assert shots == ({"on", "retain-on-failure", "off"} if failing else set())
    for mode in shots:
        assert Path(kept[mode]["failure_screenshot"]).read_bytes().startswith(b"\x89PNG")
