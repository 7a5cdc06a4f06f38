"""Collecting a suite by its layouts: both of them, at any depth under the suite root, and
nothing else.

A catalog is a `test-cases/` folder (`<type>/<difficulty>/<folder>/<version>/test-case.toml`),
a test suite a `versions/` folder whose children are version folders (`version.toml`,
`test-cases/<name>.toml`, `specifications/**/specification.toml`, `assets/<id>/asset.toml`).
Around and inside them stand media, workspaces, reference implementations and baselines: many
times more entries than author mode reads. pytest's own directory collector would visit (and
ask every plugin about) each of them; a `SuiteDirectory` yields only what a layout names, the
way pytest's `Dir` yields it (ignore rules, hooks, node names and ids unchanged), plus any path
given on the command line. Outside the layouts it looks into every folder except those no
layout holds (`NEVER_HELD`, dot-folders, run folders), since a layout may start anywhere.

A file that looks like a case where no layout puts it (a `test-case.toml` at the wrong depth
or outside every catalog, a definition below its `test-cases/` folder) is never left out: it
is collected (`author.MisplacedFile`) with one item that fails saying where the layout expects it.
"""

from __future__ import annotations

import enum
import os
from collections.abc import Iterable
from collections.abc import Iterator
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from typing import NamedTuple

import pytest

CONFIG_FILE = "tcab.toml"
MANIFEST_FILE = "test-case.toml"
VERSION_FILE = "version.toml"
CASES_FOLDER = "test-cases"
VERSIONS_FOLDER = "versions"
RUN_MARK = ".tcab"
"""The folder a run (or a seeded workspace) keeps its run.toml in: a produced implementation, not suite material."""
NEVER_HELD = frozenset({"node_modules", "target", "validation-baseline", "__pycache__"})
"""Folders no layout holds anywhere (dot-folders neither): never walked into."""
DRAFTS_FOLDER = "drafts"
"""A test suite's drafts, beside its `versions/`: work in progress, not a version (DESIGN "Real catalogs")."""
CATALOG_PATTERN = "test-cases/<type>/<difficulty>/<folder>/<version>/test-case.toml"
DEFINITION_PATTERN = "versions/<version>/test-cases/<name>.toml"
MANIFEST_DEPTH = 4
"""Folders between `test-cases/` and a manifest: type, difficulty, case folder, version."""


class Area(enum.Enum):
    ROOT = "root"
    FREE = "free"
    """Outside every layout: a layout may start in any folder here."""
    CATALOG = "catalog"
    """A `test-cases/` folder (depth 0) or a folder `depth` levels below it."""
    VERSIONS = "versions"
    VERSION = "version"
    """A child of `versions/`: a version folder when it holds version.toml or test-cases/."""
    DEFINITIONS = "definitions"
    """A version folder's `test-cases/` (depth 0) or a folder `depth` levels below it."""
    SPECIFICATIONS = "specifications"
    ASSETS = "assets"
    """`assets/` (depth 0) or `assets/<id>/` (depth 1)."""


VERSION_TREE = frozenset({Area.VERSIONS, Area.VERSION, Area.SPECIFICATIONS, Area.ASSETS})


@dataclass(frozen=True)
class Place:
    """Where a folder stands in the layouts, which decides what in it is collected."""

    area: Area
    depth: int = 0


ROOT = Place(Area.ROOT)


@dataclass(frozen=True)
class Misplaced:
    """Why a file that looks like a case is not collected as one, and where it would be."""

    message: str
    hint: str


class Held(enum.Enum):
    FILE = "a file of a layout, collected through `pytest_collect_file`"


Verdict = Place | Misplaced | Held
"""A folder's place, a file of a layout, or a file that looks like a case where no layout puts it."""


class Entry(NamedTuple):
    """A folder entry as its folder's listing gives it (no further lookup)."""

    name: str
    is_dir: bool
    is_link: bool = False


def arrange(place: Place, folder: Path, entries: Sequence[Entry]) -> Iterator[tuple[Entry, Verdict]]:
    """What the layouts make of each entry of `folder` (standing at `place`); entries they never
    hold are left out. A folder's own listing settles what it is, so no entry costs a lookup."""
    names = {entry.name for entry in entries}
    area = place.area
    if area is Area.VERSION and VERSION_FILE not in names and CASES_FOLDER not in names:
        area = Area.FREE  # not a version folder: a folder like any other
    if area is Area.FREE and (RUN_MARK in names or CONFIG_FILE in names):
        return  # a run folder (what a build produced is no suite material), or a suite root of its own
    # A manifest's folder holds its case's material, which resolution reads: nothing to walk.
    material = area in (Area.FREE, Area.ROOT, Area.CATALOG) and any(
        entry.name == MANIFEST_FILE and not entry.is_dir for entry in entries)
    for entry in entries:
        if entry.is_dir:
            if material or entry.name.startswith(".") or entry.name in NEVER_HELD:
                continue
            verdict: Verdict | None = _folder_verdict(area, place.depth, entry.name)
        else:
            verdict = _file_verdict(area, place.depth, folder, entry.name)
        if verdict is not None:
            yield entry, verdict


def _folder_verdict(area: Area, depth: int, name: str) -> Place | None:
    if area in (Area.ROOT, Area.FREE):
        if name == DRAFTS_FOLDER:
            return None
        return Place({CASES_FOLDER: Area.CATALOG, VERSIONS_FOLDER: Area.VERSIONS}.get(name, Area.FREE))
    if area is Area.VERSIONS:
        return Place(Area.VERSION)
    if area is Area.VERSION:
        areas = {CASES_FOLDER: Area.DEFINITIONS, "specifications": Area.SPECIFICATIONS, "assets": Area.ASSETS}
        return Place(areas[name]) if name in areas else None  # workspaces, prompts, validators...
    if area is Area.ASSETS:
        return Place(area, 1) if depth == 0 else None
    return Place(area, depth + 1)  # catalogs, definitions and specifications go on down


def _file_verdict(area: Area, depth: int, folder: Path, name: str) -> Misplaced | Held | None:
    if area is Area.CATALOG:
        if name == MANIFEST_FILE:
            return Held.FILE if depth == MANIFEST_DEPTH else _manifest_at_depth(folder, depth)
        return _catalog_table(folder, depth) if depth < MANIFEST_DEPTH and name.endswith(".toml") else None
    if area is Area.DEFINITIONS and name.endswith(".toml"):
        return Held.FILE if depth == 0 else _definition_too_deep(folder, depth, name)
    if name == MANIFEST_FILE:
        return _manifest_outside(area)
    held = ((area is Area.ROOT and name == CONFIG_FILE)
            or (area is Area.VERSION and name == VERSION_FILE)
            or (area is Area.SPECIFICATIONS and name == "specification.toml")
            or (area is Area.ASSETS and depth == 1 and name == "asset.toml"))
    return Held.FILE if held else None


def _folders(count: int) -> str:
    return f"{count} folder" if count == 1 else f"{count} folders"


def _manifest_outside(area: Area) -> Misplaced:
    if area in VERSION_TREE:
        return Misplaced("no case is collected from it: it stands in a test suite's versions/ tree, whose cases "
                         "are definitions", f"a definition stands at {DEFINITION_PATTERN}; a catalog manifest at "
                         f"{CATALOG_PATTERN}")
    return Misplaced("no case is collected from it: it stands outside every test-cases/ folder",
                     f"a catalog manifest stands at {CATALOG_PATTERN} (the test-cases/ folder at any depth under "
                     "the suite root)")


def _manifest_at_depth(folder: Path, depth: int) -> Misplaced:
    return Misplaced(f"no case is collected from it: it stands {_folders(depth)} below test-cases/ "
                     f"({_from_catalog(folder, depth)}), and a catalog manifest stands {MANIFEST_DEPTH} below",
                     f"move its version folder so that the manifest stands at {CATALOG_PATTERN}")


def _catalog_table(folder: Path, depth: int) -> Misplaced:
    return Misplaced(f"nothing is collected from it: {_from_catalog(folder, depth)} is a catalog folder, which holds "
                     "only folders down to its version folders",
                     f"a catalog manifest stands at {CATALOG_PATTERN}; a test suite's definition at "
                     f"{DEFINITION_PATTERN}")


def _definition_too_deep(folder: Path, depth: int, name: str) -> Misplaced:
    version = folder.parents[depth - 1].parent.name
    return Misplaced(f"no definition is collected from it: it stands {_folders(depth)} below "
                     f"versions/{version}/test-cases/",
                     f"a definition stands directly in versions/{version}/test-cases/: move it there as {name}")


def _from_catalog(folder: Path, depth: int) -> str:
    """`folder` from its `test-cases/` folder on, as an author reads it."""
    catalog = folder.parents[depth - 1] if depth else folder
    return folder.relative_to(catalog.parent).as_posix() + "/"


# -- walking ------------------------------------------------------------------------------------


def listing(folder: Path) -> list[Entry]:
    """The folder's entries in name order; entries that are neither file nor folder (a broken or
    looping symlink) are left out, since no layout holds them."""
    entries: list[Entry] = []
    with os.scandir(folder) as found:
        for entry in found:
            try:
                is_dir = entry.is_dir()
                if is_dir or entry.is_file():
                    entries.append(Entry(entry.name, is_dir, entry.is_symlink()))
            except OSError:
                continue
    return sorted(entries)


def follow(folder: Path, entry: Entry, links: tuple[str, ...]) -> tuple[str, ...] | None:
    """The symlinked folders followed once the walk enters `entry` of `folder`, or None when
    entering would walk a folder again (a link to an ancestor, or into a link followed on the way):
    outside a layout the walk has no depth bound, so only this keeps a link loop finite."""
    if not entry.is_link:
        return links
    real = os.path.realpath(folder / entry.name)
    for seen in (os.path.realpath(folder), *links):
        if seen == real or seen.startswith(real + os.sep):
            return None
    return (*links, real)


@dataclass(frozen=True)
class LayoutFiles:
    """Every file the layouts collect under a suite root, found by the rules collection follows."""

    manifests: tuple[Path, ...]
    definitions: tuple[Path, ...]
    misplaced: tuple[Path, ...]

    @property
    def holds_a_case(self) -> bool:
        return bool(self.manifests or self.definitions or self.misplaced)


def walk(root: Path) -> LayoutFiles:
    """The catalog manifests, definitions and misplaced files under `root`, in path order."""
    found: dict[Area | None, list[Path]] = {Area.CATALOG: [], Area.DEFINITIONS: [], None: []}
    stack: list[tuple[Path, Place, tuple[str, ...]]] = [(root, ROOT, ())]
    while stack:
        folder, place, links = stack.pop()
        try:
            entries = listing(folder)
        except OSError:
            continue  # unreadable: no layout file can be read from it either
        for entry, verdict in arrange(place, folder, entries):
            if isinstance(verdict, Place):
                followed = follow(folder, entry, links)
                if followed is not None:
                    stack.append((folder / entry.name, verdict, followed))
            elif isinstance(verdict, Misplaced):
                found[None].append(folder / entry.name)
            elif place.area in found:
                found[place.area].append(folder / entry.name)
    return LayoutFiles(*(tuple(sorted(paths)) for paths in found.values()))


def place_of(root: Path, folder: Path) -> Place | None:
    """The place of `folder` under `root`, found by arranging every folder on the way down; None
    when it is outside the root or stands where no layout goes."""
    try:
        parts = folder.relative_to(root).parts
    except ValueError:
        return None
    place: Place | None = ROOT
    current = root
    for name in parts:
        assert place is not None
        try:
            entries = listing(current)
        except OSError:
            return None
        folders = {entry.name: verdict for entry, verdict in arrange(place, current, entries) if entry.is_dir}
        found = folders.get(name)
        if not isinstance(found, Place):
            return None
        place, current = found, current / name
    return place


# -- collecting ---------------------------------------------------------------------------------


class SuiteDirectory(pytest.Directory):
    """A folder of a suite's layouts: collects what they name there, nothing else."""

    def __init__(self, *, place: Place, links: tuple[str, ...] = (), **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.place = place
        self.links = links
        """The symlinked folders followed on the way here (see `follow`)."""
        self.placed: dict[str, tuple[Place, tuple[str, ...]]] = {}
        """The places of the child folders it collects, which `suite_directory` gives them."""
        self.misplaced: dict[str, Misplaced] = {}
        """Its files that look like a case where no layout puts one, which `pytest_collect_file` reports."""

    def collect(self) -> Iterable[pytest.Item | pytest.Collector]:
        config, ihook, session = self.config, self.ihook, self.session
        entries = listing(self.path)
        verdicts = dict(arrange(self.place, self.path, entries))
        for entry in entries:
            path = self.path / entry.name
            verdict = verdicts.get(entry)
            if session.isinitpath(path, with_parents=entry.is_dir):
                pass  # named on the command line: collected whatever it is
            elif verdict is None or ihook.pytest_ignore_collect(collection_path=path, config=config):
                continue
            if entry.is_dir:
                if isinstance(verdict, Place):
                    followed = follow(self.path, entry, self.links)
                    if followed is None:
                        continue
                    self.placed[entry.name] = (verdict, followed)
                collector = ihook.pytest_collect_directory(path=path, parent=self)
                if collector is not None:
                    yield collector
            else:
                if isinstance(verdict, Misplaced):
                    self.misplaced[entry.name] = verdict
                yield from ihook.pytest_collect_file(file_path=path, parent=self)


def misplaced(path: Path, parent: pytest.Collector) -> Misplaced | None:
    """Why the file at `path` is not collected as a case though it looks like one (None: it is fine)."""
    return parent.misplaced.get(path.name) if isinstance(parent, SuiteDirectory) else None


def suite_directory(path: Path, parent: pytest.Collector, configured: Path | None) -> SuiteDirectory | None:
    """The layout collector of `path`: a folder its suite folder placed, a folder of the
    configured suite, or a folder holding `tcab.toml` when no suite is configured."""
    if isinstance(parent, SuiteDirectory):
        if path.name not in parent.placed:
            return None  # named on the command line, outside the layouts: pytest's own collector
        place, links = parent.placed[path.name]
    elif configured is not None:
        found = place_of(configured, path.resolve())
        if found is None:
            return None
        place, links = found, ()
    elif (path / CONFIG_FILE).is_file():
        place, links = ROOT, ()
    else:
        return None
    return SuiteDirectory.from_parent(parent, path=path, place=place, links=links)
