"""The suite a session works on: its root, its `tcab.toml`, resolutions cached per file, and
the lookup of a case by `SLUG[@VERSION][#VARIANT][:ENGINE]` across both layouts."""

from __future__ import annotations

import re
from collections import defaultdict
from contextlib import AbstractContextManager
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from pytest_tcab.case import CaseVersion
from pytest_tcab.case import DefinitionCase
from pytest_tcab.case import Variant
from pytest_tcab.errors import Problem
from pytest_tcab.errors import ProblemsFound
from pytest_tcab.errors import TcabError
from pytest_tcab.layout import CONFIG_FILE
from pytest_tcab.layout import MANIFEST_FILE
from pytest_tcab.layout import LayoutFiles
from pytest_tcab.layout import walk
from pytest_tcab.models.suite import SuiteConfig
from pytest_tcab.models.validate import validate
from pytest_tcab.resolve.definition import NO_ENGINE
from pytest_tcab.resolve.definition import DefinitionResolution
from pytest_tcab.resolve.definition import VersionTree
from pytest_tcab.resolve.definition import definition_version_folder
from pytest_tcab.resolve.definition import resolve_definition
from pytest_tcab.resolve.definition import resolve_tree
from pytest_tcab.resolve.manifest import ERRATA_FILE
from pytest_tcab.resolve.manifest import Resolution
from pytest_tcab.resolve.manifest import catalog_type
from pytest_tcab.resolve.manifest import resolve_version
from pytest_tcab.toml import Loaded
from pytest_tcab.toml import TomlDocument
from pytest_tcab.toml import load
from pytest_tcab.toml import reading_once


class CaseNotFound(TcabError):
    """The suite has no case by that slug, or not in the version, variant or engine asked for."""


@dataclass(frozen=True)
class FoundCase:
    """A catalog case version and the variant a lookup named."""

    case: CaseVersion
    variant: Variant
    experimental: bool


@dataclass(frozen=True)
class FoundDefinition:
    """A test-suite definition and the engine a lookup named (`none` when it named none)."""

    case: DefinitionCase
    engine: str
    experimental: bool


def version_key(name: str) -> tuple[int, ...]:
    """Orders version folder names numerically, so v1.10.0 is newer than v1.9.0."""
    return tuple(int(part) for part in re.findall(r"\d+", name))


def find_root(path: Path) -> Path:
    """The suite root of a manifest given directly: a `tcab.toml` on the way up marks it,
    else the folder holding `test-cases/<type>/` (catalog) or `versions/` (definitions)."""
    for parent in path.parents:
        if (parent / CONFIG_FILE).is_file():
            return parent
    if path.name == MANIFEST_FILE and catalog_type(path)[0] is not None:
        return path.parents[5]
    for parent in path.parents:
        if parent.name == "versions":
            return parent.parent
    return path.parent


class Suite:
    """One suite root. Everything read from it is read once per session."""

    def __init__(self, root: Path, layout: LayoutFiles | None = None) -> None:
        self.root = root
        self._layout = layout
        self._resolutions: dict[Path, Resolution] = {}
        self._trees: dict[Path, VersionTree] = {}
        self._definitions: dict[Path, DefinitionResolution] = {}
        self._documents: dict[Path, Loaded] = {}
        self.listings: dict[Path, tuple[tuple[Path, str], ...]] = {}
        """Folders seeding walks, listed once per session (see `seeding.SeedPlan`)."""

    def reading(self) -> AbstractContextManager[None]:
        """The scope in which every TOML file of this suite is parsed at most once per session."""
        return reading_once(self._documents)

    def load(self, path: Path) -> Loaded:
        """A TOML file of the suite, parsed once per session."""
        with self.reading():
            return load(path)

    @cached_property
    def _config(self) -> tuple[SuiteConfig, list[Problem]]:
        path = self.root / CONFIG_FILE
        if not path.is_file():
            return SuiteConfig(), []
        loaded = self.load(path)
        if isinstance(loaded, Problem):
            return SuiteConfig(), [loaded]
        config, problems = validate(SuiteConfig, loaded)
        problems = list(problems)
        if config is not None:
            problems.extend(_config_path_problems(loaded, self.root, config))
        return config or SuiteConfig(), problems

    @property
    def config(self) -> SuiteConfig:
        return self._config[0]

    @property
    def config_problems(self) -> list[Problem]:
        return self._config[1]

    def resolve(self, manifest: Path) -> Resolution:
        if manifest not in self._resolutions:
            config = self.config
            with self.reading():
                self._resolutions[manifest] = resolve_version(manifest, config, self.root)
        return self._resolutions[manifest]

    def version_tree(self, folder: Path) -> VersionTree:
        """A test-suite version folder's version.toml, specifications and assets, read once."""
        if folder not in self._trees:
            with self.reading():
                self._trees[folder] = resolve_tree(folder)
        return self._trees[folder]

    def resolve_definition(self, path: Path) -> DefinitionResolution:
        if path not in self._definitions:
            tree = self.version_tree(path.parents[1])
            configured = self.config if (self.root / CONFIG_FILE).is_file() else None
            with self.reading():
                self._definitions[path] = resolve_definition(path, tree, configured)
        return self._definitions[path]

    def release(self, manifest: Path) -> None:
        """Let go of what was read and resolved for a catalog version once its items ran, so memory
        stays bounded per case version however large the catalog; a later look reads it again.

        Documents go by name (the manifest, its variant files, errata): the session's other
        documents are many. Listings are only made while seeding items run, so the few there
        are scanned.
        """
        self._resolutions.pop(manifest, None)
        folder = manifest.parent
        loaded = self._documents.pop(manifest, None)
        variants = loaded.data.get("variants") if isinstance(loaded, TomlDocument) else None
        for relative in variants if isinstance(variants, list) else ():
            if isinstance(relative, str):
                self._documents.pop(folder / relative, None)
        self._documents.pop(folder / ERRATA_FILE, None)
        for path in [path for path in self.listings if folder in path.parents]:
            del self.listings[path]

    @property
    def layout(self) -> LayoutFiles:
        """What the layouts hold under the root, at any depth: walked once per session."""
        if self._layout is None:
            self._layout = walk(self.root)
        return self._layout

    @property
    def manifests(self) -> tuple[Path, ...]:
        """Every catalog manifest under the root, in path order."""
        return self.layout.manifests

    @property
    def definitions(self) -> tuple[Path, ...]:
        """Every test-suite definition (`versions/<version>/test-cases/<name>.toml`), in path order."""
        return self.layout.definitions

    @cached_property
    def slug_index(self) -> SlugIndex:
        with self.reading():
            return build_slug_index(self)

    def find(self, slug: str, version: str | None = None, variant: str | None = None,
             engine: str | None = None) -> FoundCase | FoundDefinition:
        """The case `SLUG[@VERSION][#VARIANT][:ENGINE]` names, resolved, in whichever layout holds it.

        Run mode and seeding both name cases this way; one lookup keeps their answers (and their
        messages saying what exists instead) the same. A case that does not resolve raises its
        problems, since neither mode can work from it.
        """
        path = self._locate(slug, version)
        if definition_version_folder(path) is not None:
            return self._definition(path, slug, variant, engine)
        return self._catalog(path, slug, variant, engine)

    def _locate(self, slug: str, version: str | None) -> Path:
        """The manifest or definition file of `slug` at `version`, the newest when None."""
        index = self.slug_index
        catalog = index.by_slug.get(slug, [])
        definitions = index.definitions.get(slug, [])
        if catalog and definitions:
            raise CaseNotFound(f"slug {slug!r} is claimed by both layouts; run author mode to see the slug problem")
        if not catalog and not definitions:
            known = sorted(set(index.by_slug) | set(index.definitions))
            raise CaseNotFound(f"no case with slug {slug!r} in {self.root}; known slugs: {', '.join(known) or 'none'}")
        test_suites = sorted({path.parents[2] for path in definitions})
        if len(test_suites) > 1:
            shown = ", ".join(f"{folder.relative_to(self.root).as_posix()}/" for folder in test_suites)
            raise CaseNotFound(f"slug {slug!r} is claimed by definitions of {len(test_suites)} test suites ({shown}); "
                               "run author mode to see the slug problem")
        what = "case" if catalog else "definition"
        by_version = {_version_name(path): path for path in catalog or definitions}
        names = sorted(by_version, key=version_key)
        if version is None:
            return by_version[names[-1]]
        if version not in by_version:
            raise CaseNotFound(f"{what} {slug!r} has no version {version!r}; known versions: {', '.join(names)}")
        return by_version[version]

    def _catalog(self, manifest: Path, slug: str, variant: str | None, engine: str | None) -> FoundCase:
        if engine not in (None, NO_ENGINE):
            raise CaseNotFound(f"case {slug!r} is a catalog case, which selects no engine (got {engine!r})")
        resolution = self.resolve(manifest)
        if not resolution.clean or resolution.case is None:
            raise ProblemsFound(resolution.problems, self.root)
        case = resolution.case
        found = case.variant(variant)
        if found is None:
            known = ", ".join(v.slug for v in case.variants)
            raise CaseNotFound(f"case {slug!r} {case.version} has no variant {variant!r}; known variants: {known}")
        return FoundCase(case, found, resolution.experimental)

    def _definition(self, path: Path, slug: str, variant: str | None, engine: str | None) -> FoundDefinition:
        if variant is not None:
            raise CaseNotFound(f"definition {slug!r} has no variants (got #{variant})")
        resolution = self.resolve_definition(path)
        if not resolution.clean or resolution.case is None:
            raise ProblemsFound(resolution.problems, self.root)
        chosen = engine or NO_ENGINE
        if chosen not in resolution.case.engines:
            raise CaseNotFound(f"definition {slug!r} does not declare engine {chosen!r}; its engines: "
                               f"{', '.join(resolution.case.engines)} (pick one with :ENGINE)")
        return FoundDefinition(resolution.case, chosen, resolution.experimental)


def _version_name(path: Path) -> str:
    """The version folder of a manifest (`<version>/test-case.toml`) or a definition
    (`versions/<version>/test-cases/<name>.toml`)."""
    return (definition_version_folder(path) or path.parent).name


def _config_path_problems(doc, root: Path, config: SuiteConfig) -> list[Problem]:  # type: ignore[no-untyped-def]
    from pytest_tcab.resolve.paths import check_path

    problems: list[Problem] = []
    for slug, engine in config.engines.items():
        if slug == "none":
            problems.append(doc.problem(("engines", slug), "engine slug 'none' is reserved: it means no engine"))
        if engine.docs is not None:
            problems.extend(check_path(doc, root, ("engines", slug, "docs"), engine.docs, "dir", "engine docs")[1])
    for name, package in config.packages.items():
        problems.extend(check_path(doc, root, ("packages", name, "path"), package.path, "dir", "package")[1])
    return problems


class SlugIndex:
    """Which manifest declares which slug, read once per suite and kept per case folder, so
    each manifest's rules look at its own folder and its own slug, never at the whole catalog."""

    def __init__(self) -> None:
        self.readable: set[Path] = set()
        """The manifests that parsed (each manifest's rules load their own document again)."""
        self.by_folder: dict[Path, dict[Path, str]] = defaultdict(dict)
        """Case folder -> its versions' manifests -> the slug each declares."""
        self.by_slug: dict[str, list[Path]] = defaultdict(list)
        self.definitions: dict[str, list[Path]] = defaultdict(list)


def build_slug_index(suite: Suite) -> SlugIndex:
    index = SlugIndex()
    for path in suite.manifests:
        loaded = load(path)
        if isinstance(loaded, Problem):
            continue
        index.readable.add(path)
        slug = loaded.data.get("slug")
        if isinstance(slug, str):
            index.by_folder[path.parent.parent][path] = slug
            index.by_slug[slug].append(path)
    for definition in suite.definitions:
        index.definitions[definition.stem].append(definition)
    return index
