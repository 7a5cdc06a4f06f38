"""Collecting a suite by its layout: only the folders and files the layout can hold.

A suite folder also holds media, workspaces, reference implementations and baselines: many
times more entries than the manifests and definitions author mode reads. pytest's own
directory collector would visit (and ask every plugin about) each of them; a `SuiteDirectory`
yields only the entries the layout names, the way pytest's `Dir` yields them (ignore rules,
hooks, node names and ids unchanged), plus any path given on the command line.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

import pytest

CONFIG_FILE = "tcab.toml"
MANIFEST_FILE = "test-case.toml"

Parts = tuple[str, ...]


def layout_holds(parts: Parts, name: str, is_dir: bool) -> bool:
    """Whether the suite folder at `parts` (relative to the suite root) can hold entry `name`.

    Catalog: `test-cases/<type>/<difficulty>/<folder>/<version>/test-case.toml`. Test-suite
    layout: `versions/<version>/` with `version.toml`, `test-cases/<name>.toml`,
    `specifications/**/specification.toml` and `assets/<id>/asset.toml`.
    """
    depth = len(parts)
    if depth == 0:
        return name in ("test-cases", "versions") if is_dir else name == CONFIG_FILE
    top = parts[0]
    if top == "test-cases":
        return is_dir if depth < 5 else depth == 5 and not is_dir and name == MANIFEST_FILE
    if top != "versions":
        return False
    if depth == 1:
        return is_dir
    if depth == 2:
        return name in ("test-cases", "specifications", "assets") if is_dir else name == "version.toml"
    area = parts[2]
    if area == "test-cases":
        return depth == 3 and not is_dir and name.endswith(".toml")
    if area == "specifications":
        return is_dir or name == "specification.toml"
    if area == "assets":
        return is_dir if depth == 3 else depth == 4 and not is_dir and name == "asset.toml"
    return False


def layout_parts(root: Path, path: Path) -> Parts | None:
    """`path` relative to the suite `root`, when it is a folder the layout can hold; else None."""
    try:
        parts = path.relative_to(root).parts
    except ValueError:
        return None
    if all(layout_holds(parts[:i], name, True) for i, name in enumerate(parts)):
        return parts
    return None


class SuiteDirectory(pytest.Directory):
    """A folder of a suite's layout: collects what the layout names there, nothing else."""

    def __init__(self, *, root: Path, parts: Parts, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.root = root
        self.parts = parts

    def collect(self) -> Iterable[pytest.Item | pytest.Collector]:
        config, ihook, session = self.config, self.ihook, self.session
        with os.scandir(self.path) as listing:
            entries = sorted(listing, key=lambda entry: entry.name)
        for entry in entries:
            try:
                is_dir = entry.is_dir()
                if not is_dir and not entry.is_file():
                    continue
            except OSError:  # a symlink loop: not a suite entry (resolution names it where a key does)
                continue
            path = Path(entry.path)
            if session.isinitpath(path, with_parents=is_dir):
                pass  # named on the command line: collected whatever it is
            elif not layout_holds(self.parts, entry.name, is_dir) or ihook.pytest_ignore_collect(
                    collection_path=path, config=config):
                continue
            if is_dir:
                collector = ihook.pytest_collect_directory(path=path, parent=self)
                if collector is not None:
                    yield collector
            else:
                yield from ihook.pytest_collect_file(file_path=path, parent=self)


def suite_directory(path: Path, parent: pytest.Collector, configured: Path | None) -> SuiteDirectory | None:
    """The layout collector of `path`: a folder of the configured suite, a child of a suite
    folder, or a folder holding `tcab.toml` when no suite is configured."""
    if isinstance(parent, SuiteDirectory):
        root: Path | None = parent.root
        parts = parent.parts + (path.name,) if layout_holds(parent.parts, path.name, True) else None
    elif configured is not None:
        root = configured
        parts = layout_parts(configured, path.resolve())
    elif (path / CONFIG_FILE).is_file():
        root, parts = path, ()
    else:
        return None
    if root is None or parts is None:
        return None
    return SuiteDirectory.from_parent(parent, path=path, root=root, parts=parts)
