"""Reading the HTML reports a session writes: what a page loads or opens, and pytest-html's extras."""

from __future__ import annotations

import html
import json
import re
from html.parser import HTMLParser
from typing import Any


def media_attributes(text: str) -> list[tuple[str, str, str]]:
    """Every (tag, attribute, value) of the page `text` that loads or opens something."""
    found: list[tuple[str, str, str]] = []

    class Parser(HTMLParser):
        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            found.extend((tag, name, value or "") for name, value in attrs if name in ("src", "href", "poster"))

    Parser().feed(text)
    return found


def pytest_html_extras(text: str) -> dict[str, list[dict[str, Any]]]:
    """Each test's extras, as pytest-html 4 keeps them in its report's JSON blob, by node id."""
    blob = re.search(r'data-jsonblob="([^"]*)"', text)
    assert blob is not None, "not a pytest-html 4 report"
    tests = json.loads(html.unescape(blob[1]))["tests"]
    return {test: [extra for run in runs for extra in run.get("extras", [])] for test, runs in tests.items()}
