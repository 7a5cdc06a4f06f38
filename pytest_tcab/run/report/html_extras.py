"""pytest-html extras: each run item's media in pytest-html's report, through its public API.

A check's expected, actual and diff screenshots, a verdict's stills and clip (beside the committed
baseline), a proof, the page a requirement's validator left, a tournament's replay clip and an
asset's pictures are attached to the item's report as `report.extras` (`pytest_html.extras.image`
and `video`), so `pytest --html=report.html` shows them under the item, linked or embedded as
pytest-html's own `--self-contained-html` says. A medium past `media.EMBED_LIMIT` is attached as
a link instead.

Registered by plugin.py only when pytest-html is loaded and writes a report: without it, nothing
here is imported.
"""

from __future__ import annotations

from collections.abc import Generator
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pytest_html import extras

from pytest_tcab.run.item import RunItem
from pytest_tcab.run.media import EMBED_LIMIT
from pytest_tcab.run.media import base64_text
from pytest_tcab.run.media import embeddable
from pytest_tcab.run.media import is_video
from pytest_tcab.run.media import mime_type
from pytest_tcab.run.media import page_link

PICTURE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".gif", ".webp"})
HTML_PATH_DEST = "htmlpath"
"""Where pytest-html keeps `--html=PATH`."""


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, Any]:
    report = yield
    if report.when == "call" and isinstance(item, RunItem):
        report_dir = Path(item.config.getoption(HTML_PATH_DEST)).resolve().parent
        attached = [_extra(path, name, report_dir) for path, name in media_of(item.kind, item.figures)
                    if Path(path).is_file()]
        report.extras = [*getattr(report, "extras", []), *attached]
    return report


def media_of(kind: str, figures: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """Each medium an item of `kind` recorded in `figures`, with the name pytest-html shows it under."""
    if kind == "check":
        for side in ("expected", "actual", "diff"):
            if figures.get(side):
                yield figures[side], f"{figures.get('view', 'check')}: {side}"
    elif kind == "validate":
        for shown in figures.get("media", []):
            if shown.get("baseline"):
                yield shown["baseline"], f"{shown['output']}: expected (committed baseline)"
            if shown.get("path"):
                yield shown["path"], f"{shown['output']}: observed"
    elif kind == "proof" and figures.get("media"):
        yield figures["media"], f"proof {figures.get('dest', '')}".rstrip()
    elif kind == "requirement":
        for decided in figures.get("decided_by", []):
            if decided.get("media"):
                yield decided["media"], f"page after {decided.get('validator', 'the validator')}"
    elif kind == "replay" and figures.get("clip"):
        yield figures["clip"], f"clip of {figures.get('match', 'the final match')}"
    elif kind == "asset":
        yield from _asset_media(figures)


def _asset_media(figures: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """Each side's file when it is a picture, and the pictures drawn from it (`asset_previews`)."""
    previews = figures.get("previews") or {}
    for side in ("reference", "produced"):
        shown = previews.get(side) or {}
        if shown.get("file") and Path(shown["file"]).suffix.lower() in PICTURE_SUFFIXES:
            yield shown["file"], f"{side}: {Path(shown['file']).name}"
        for key, label in (("waveform", "waveform"), ("front", "front view")):
            if shown.get(key):
                yield shown[key], f"{side}: {label}"
    played = figures.get("played") or {}
    if played.get("picture"):
        yield played["picture"], "produced: the busiest frame, played once"


def _extra(path: str, name: str, report_dir: Path) -> dict[str, Any]:
    """The medium as a pytest-html extra: its content in base64, or a link when it is too large."""
    content = embeddable(path, EMBED_LIMIT)
    if isinstance(content, str):
        link: dict[str, Any] = extras.url(page_link(path, report_dir), name=f"{name} (not embedded: {content})")
        return link
    kind, extension = mime_type(path), Path(path).suffix.lstrip(".").lower()
    if is_video(path):
        video: dict[str, Any] = extras.video(base64_text(content), name=name, mime_type=kind, extension=extension)
        return video
    image: dict[str, Any] = extras.image(base64_text(content), name=name, mime_type=kind, extension=extension)
    return image


