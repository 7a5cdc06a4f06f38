"""The mockup cache: keyed by everything that decides the pixels, whole PNGs only."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image

from pytest_tcab.run.browser.mockups import cached_render


def _png(colour: str) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (4, 4), colour).save(buffer, format="PNG")
    return buffer.getvalue()


def test_a_render_is_kept_until_what_decides_it_changes(pytester: pytest.Pytester) -> None:
    snapshot = pytester.path / "snapshot"
    (snapshot / "reference").mkdir(parents=True)
    (snapshot / "reference/title.html").write_text("<p>title</p>", encoding="utf-8")
    (snapshot / "reference/logo.svg").write_text("<svg/>", encoding="utf-8")
    renders: list[str] = []

    def render(colour: str) -> bytes:
        renders.append(colour)
        return _png(colour)

    facts = {"viewport": [1280, 720], "chromium": "156.0", "context": {"locale": "en-US"}}

    def session(facts: dict[str, object] = facts, colour: str = "red") -> tuple[bytes, bool]:
        config = pytester.parseconfigure()  # a fresh session: only the disk remembers
        return cached_render(config, snapshot, "reference/title.html", facts, lambda: render(colour))

    assert session() == (_png("red"), False)
    assert session(colour="blue") == (_png("red"), True)
    (snapshot / "reference/logo.svg").write_text("<svg width='2'/>", encoding="utf-8")  # an asset beside it
    assert session(colour="green") == (_png("green"), False)
    assert session(facts={**facts, "chromium": "157.0"}, colour="blue")[1] is False
    entries = list(Path(pytester.parseconfigure().cache.mkdir("tcab-mockups")).glob("*.png"))
    for entry in entries:
        entry.write_bytes(entry.read_bytes()[:-8])  # cut short
    assert session(colour="white") == (_png("white"), False)
    assert renders == ["red", "green", "blue", "white"]
