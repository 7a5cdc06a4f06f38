"""Selecting items as pytest users do: markers per item kind, the case's words for `-k` and `-m`,
and the words of who produced a run.

Every tcab item carries the marker `tcab` and `tcab_<kind>` (`tcab_resolve`, `tcab_check`,
`tcab_fuel`, ...), `browser` when it drives Chromium and `wasm` when it runs wasmtime; the
case's slug, type, difficulty and tags are keywords (`-k pong`) and markers (`-m particles`), and
so are who produced a run (its run.toml's `model`, `harness`, and each label as its value and as
`<key>-<value>`: `-m "harness-a and temperature-0.2"`).
(Under pytest-xdist a run's items are kept on one worker by `run.scheduling`, not by a marker.)
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pytest

KIND_MARKERS = ("resolve", "errata", "slug", "config", "template", "seed", "build", "proof", "check",
                "validate", "correctness", "fuel", "toolchain", "baseline", "requirement", "asset",
                "match", "standings")
"""Every item kind, as `tcab_<kind>` markers; an unlisted kind still gets its marker, registered on use."""
_WORD = re.compile(r"[A-Za-z_][\w.+-]*")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "tcab: an item of a Test Cabinet suite (pytest-tcab)")
    for kind in KIND_MARKERS:
        config.addinivalue_line("markers", f"tcab_{kind}: a tcab `{kind}` item")
    config.addinivalue_line("markers", "browser: a tcab item driven in Chromium")
    config.addinivalue_line("markers", "wasm: a tcab item run in wasmtime")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Before `-k` and `-m` deselect: every tcab item gets its markers and keywords."""
    for item in items:
        if type(item).__module__.startswith("pytest_tcab."):
            label(config, item)


def label(config: pytest.Config, item: pytest.Item) -> None:
    kind = str(getattr(item, "kind", "") or item.name.partition("[")[0])
    words = {"tcab", f"tcab_{kind}"}
    if type(item).__module__.startswith("pytest_tcab.run.") and _drives_a_browser(item):
        words.add("browser")
    if getattr(item, "wasm", False):
        words.add("wasm")
    run = getattr(item, "run", None)
    if run is not None:
        case_words = case_keywords(run.case.manifest_path)
        case_words |= {w for w in (run.variant.slug, run.engine, run.case.version, *producer_words(run))
                       if _WORD.fullmatch(w)}
        words |= case_words
        item.extra_keyword_matches.update(case_words)
    else:
        case_file = _case_file(item)
        if case_file is not None:
            _label_case_file(config, case_file)
    for word in sorted(words):
        item.add_marker(_marker(config, word))


def producer_words(run: object) -> list[str]:
    """Who produced a run, as words: its model, its harness, and each label's value and `<key>-<value>`."""
    labels: dict[str, str] = getattr(run, "labels", {})
    words = [word for word in (getattr(run, "model", None), getattr(run, "harness", None)) if word]
    return words + [word for key, value in sorted(labels.items()) for word in (value, f"{key}-{value}")]


def _case_file(item: pytest.Item) -> pytest.File | None:
    """The case file an author item belongs to: its collector's TOML file."""
    node = item.parent
    while node is not None and not isinstance(node, pytest.File):
        node = node.parent
    return node


def _label_case_file(config: pytest.Config, case_file: pytest.File) -> None:
    """The case's words as markers and keywords of its file, once: every item under it has them
    (`-m` and `-k` read a node's parents too), at one marker per case instead of one per item."""
    if case_file.stash.get(_labelled_key, False):
        return
    case_file.stash[_labelled_key] = True
    from pytest_tcab.session import suite_for

    with suite_for(config, case_file.path).reading():  # the manifest the suite already parsed
        case_words = case_keywords(case_file.path)
    for word in sorted(case_words):
        case_file.add_marker(_marker(config, word))
    case_file.extra_keyword_matches.update(case_words)


@functools.lru_cache(maxsize=4096)
def _drives_a_browser(item: pytest.Item) -> bool:
    """A run-mode item in the browser (asked of run items only: author mode never imports run mode)."""
    from pytest_tcab.run.browser.item import BrowserFunction

    return isinstance(item, BrowserFunction)


def case_keywords(path: Path) -> frozenset[str]:
    """The slug, type, difficulty and tags a case file declares (the slug of a definition is its stem)."""
    from pytest_tcab.resolve.definition import definition_version_folder
    from pytest_tcab.resolve.manifest import catalog_type
    from pytest_tcab.toml import TomlDocument
    from pytest_tcab.toml import load

    definition = definition_version_folder(path) is not None
    if not (definition or path.name == "test-case.toml"):
        return frozenset()  # tcab.toml, version.toml, a specification: no case of their own
    loaded = load(path)
    if not isinstance(loaded, TomlDocument):
        return frozenset()
    data = loaded.data
    slug = path.stem if definition else data.get("slug")
    case_type = data.get("type") or catalog_type(path)[0]
    tags = data.get("tags")
    words = [slug, case_type, data.get("difficulty"), *(tags if isinstance(tags, list) else [])]
    return frozenset(w for w in words if isinstance(w, str) and _WORD.fullmatch(w))


def _marker(config: pytest.Config, name: str) -> pytest.MarkDecorator:
    """The marker `name`, registered (so `--strict-markers` accepts a case word) and built once."""
    markers: dict[str, pytest.MarkDecorator] = config.stash.setdefault(_markers_key, {})
    marker = markers.get(name)
    if marker is None:
        config.addinivalue_line("markers", f"{name}: tcab items of cases declaring {name!r}")
        marker = markers[name] = getattr(pytest.mark, name)
    return marker


_markers_key = pytest.StashKey[dict[str, pytest.MarkDecorator]]()
_labelled_key = pytest.StashKey[bool]()

