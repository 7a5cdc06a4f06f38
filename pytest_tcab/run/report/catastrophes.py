"""Which runs of a sweep are catastrophic: nothing workable came out of them to grade.

A run is catastrophic when its build failed, its page never loaded, or its module never
instantiated (the public Test Cabinet keeps such runs out of the score and reports them as a
failure rate of their own; Harbor counts them as 0). It is decided from the row alone (its
items' outcomes and their failures' first lines), so a resumed or merged sweep decides alike:

- **build failed**: the `build` item failed (a static site's or a module's build);
- **page never loaded**: some item failed because the build's page could not be loaded, and no
  item that drives the page passed (a page that loaded once, loaded);
- **module never instantiated**: a performance case's module failed to instantiate.

Only the grader's own words are read: each pattern is anchored at the start of an item's
first line, before any text the page or the module could have put there (a script's path or a
check's view, both the suite's, come first), so a build cannot word its own failure into a
catastrophe (and out of the score).
"""

from __future__ import annotations

import re
from typing import Any

BUILD, PAGE, MODULE = "build failed", "page never loaded", "module never instantiated"
KINDS = (BUILD, PAGE, MODULE)
_LOAD_FAILED = r"(?:could not load \S+: |loading \S+ produced no response|the page answered HTTP \d{3}|the page threw while loading: )"
_PAGE_NOT_LOADED = (
    re.compile(r"^[^:\"\n]+: the build could not be loaded: " + _LOAD_FAILED),  # a validation script's verdict
    re.compile(r"^check '[^'\n]*': " + _LOAD_FAILED),  # a check
)
"""What the grader writes when the build's page cannot be loaded (`run/browser/driving.py`'s `load`)."""
_PAGE_ITEMS = frozenset({"validate", "check", "requirement"})
"""The item kinds that load the build's page."""
_NOT_INSTANTIATED = re.compile(r"^instantiation (?:failed|trapped|asked for|used up|was stopped)")
"""What the wasm runner writes when a module cannot be instantiated (`run/wasm/runner.py`)."""
_MODULE_ITEMS = frozenset({"correctness", "fuel"})


def catastrophe(row: dict[str, Any]) -> str | None:
    """What made a graded run catastrophic (`BUILD`, `PAGE`, `MODULE`), or None when it was workable."""
    items: dict[str, str] = row.get("items") or {}
    details: dict[str, dict[str, Any]] = row.get("details") or {}
    if items.get("build") == "failed":
        return BUILD

    def message(key: str) -> str:
        return str((details.get(key) or {}).get("message") or "")

    page_keys = [key for key in items if _kind(key) in _PAGE_ITEMS]
    if (any(any(pattern.match(message(key)) for pattern in _PAGE_NOT_LOADED) for key in page_keys)
            and not any(items[key] == "passed" for key in page_keys)):
        return PAGE
    if any(_kind(key) in _MODULE_ITEMS and _NOT_INSTANTIATED.match(message(key)) for key in items):
        return MODULE
    return None


def _kind(key: str) -> str:
    return key.partition("[")[0]
