"""Mockup baselines rendered once: a check's expected side, kept on disk by what decides its pixels.

Rendering a mockup costs a page load and a screenshot, every check, every session, although a
mockup rarely changes. The PNG is kept in pytest's cache folder (`tcab-mockups/`) under the
sha256 of everything it depends on: the files of the mockup's top-level folder in the run's
reporter-side snapshot (the HTML with its stylesheets, fonts and images, as the page loads
them), the mockup's path, the viewport, the Chromium version and the context options that
change rendering (locale, time zone). A changed mockup, asset or browser renders again. Entries
are written atomically and checked to be whole PNGs before use; a damaged one is rendered again.
Without the cacheprovider plugin (`-p no:cacheprovider`) renders are kept for the session only.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_tcab.caches import write_atomically

CACHE_FOLDER = "tcab-mockups"

_memory_key = pytest.StashKey[dict[str, bytes]]()
_folders_key = pytest.StashKey[dict[Path, str]]()


def cached_render(config: pytest.Config, reporter_folder: Path, source: str, facts: dict[str, Any],
                  render: Callable[[], bytes]) -> tuple[bytes, bool]:
    """The mockup `source` (relative to `reporter_folder`) as PNG bytes, and whether it came from a cache.

    `facts` are the rendering conditions besides the files (viewport, Chromium version, context
    options); `render` is called on a miss.
    """
    key = _key(config, reporter_folder, source, facts)
    memory = config.stash.setdefault(_memory_key, {})
    if key in memory:
        return memory[key], True
    folder = _folder(config)
    path = None if folder is None else folder / f"{key}.png"
    png = _read(path) if path is not None else None
    hit = png is not None
    if png is None:
        png = render()
        if path is not None:
            _write(path, png)
    memory[key] = png
    return png, hit


def _key(config: pytest.Config, reporter_folder: Path, source: str, facts: dict[str, Any]) -> str:
    top = reporter_folder / Path(source).parts[0]
    digests = config.stash.setdefault(_folders_key, {})
    if top not in digests:
        digests[top] = _tree_digest(top)
    described = json.dumps({"files": digests[top], "source": source, **facts}, sort_keys=True, default=str)
    return hashlib.sha256(described.encode("utf-8")).hexdigest()


def _tree_digest(top: Path) -> str:
    """Every file under `top` (or `top` itself), by relative path and content."""
    digest = hashlib.sha256()
    files = sorted(path for path in top.rglob("*") if path.is_file()) if top.is_dir() else [top]
    for path in files:
        digest.update(path.relative_to(top.parent).as_posix().encode("utf-8") + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def _folder(config: pytest.Config) -> Path | None:
    cache = getattr(config, "cache", None)
    return None if cache is None else Path(cache.mkdir(CACHE_FOLDER))


def _read(path: Path) -> bytes | None:
    """The entry, when it is a whole PNG (its signature first, its IEND chunk last); else None.

    Entries are replaced atomically, so a cut or foreign file is damage from outside: rendered again.
    """
    try:
        png = path.read_bytes()
    except OSError:
        return None
    return png if png.startswith(_PNG_SIGNATURE) and png.endswith(_PNG_END) else None


_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_PNG_END = b"IEND\xaeB`\x82"


def _write(path: Path, png: bytes) -> None:
    try:
        write_atomically(path, png)
    except OSError:
        return  # a cache that cannot be written only costs the next session a render
