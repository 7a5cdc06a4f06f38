"""A graded page has the one window the plugin opened: windows it opens itself are refused by
Chromium's popup blocker (without a gesture) or closed as they appear (on a click), so a page that
opens a hundred windows, each opening a hundred more, cannot take the browser or the grader."""

from __future__ import annotations

from playwright.sync_api import Page



def test_windows_a_page_opens_are_refused_or_closed(page: Page, pages_url: str) -> None:
    page.goto(pages_url + "popups.html")  # loaded, not set_content: a call into the page is a gesture
    assert page.evaluate("window.opened.filter(Boolean).length") == 0  # no gesture: blocked
    with page.expect_popup() as opened:
        page.click("#open")  # a gesture: Chromium opens it, and the plugin closes it as it appears
    popup = opened.value
    if not popup.is_closed():
        popup.wait_for_event("close", timeout=10_000)  # one round trip, on a loaded host
    assert page.context.pages == [page]
