"""The suite a session works on: its root, its `tcab.toml`, and resolutions cached per file."""

from __future__ import annotations

from functools import cached_property
from pathlib import Path

from pytest_tcab.errors import Problem
from pytest_tcab.models.suite import SuiteConfig
from pytest_tcab.models.validate import validate
from pytest_tcab.resolve.definition import DefinitionResolution
from pytest_tcab.resolve.definition import VersionTree
from pytest_tcab.resolve.definition import resolve_definition
from pytest_tcab.resolve.definition import resolve_tree
from pytest_tcab.resolve.manifest import Resolution
from pytest_tcab.resolve.manifest import catalog_type
from pytest_tcab.resolve.manifest import resolve_version
from pytest_tcab.resolve.suite import SlugIndex
from pytest_tcab.resolve.suite import build_slug_index
from pytest_tcab.toml import load

CONFIG_FILE = "tcab.toml"
MANIFEST_FILE = "test-case.toml"


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

    def __init__(self, root: Path) -> None:
        self.root = root
        self._resolutions: dict[Path, Resolution] = {}
        self._trees: dict[Path, VersionTree] = {}
        self._definitions: dict[Path, DefinitionResolution] = {}

    @cached_property
    def _config(self) -> tuple[SuiteConfig, list[Problem]]:
        path = self.root / CONFIG_FILE
        if not path.is_file():
            return SuiteConfig(), []
        loaded = load(path)
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
            self._resolutions[manifest] = resolve_version(manifest, self.config, self.root)
        return self._resolutions[manifest]

    def version_tree(self, folder: Path) -> VersionTree:
        """A test-suite version folder's version.toml, specifications and assets, read once."""
        if folder not in self._trees:
            self._trees[folder] = resolve_tree(folder)
        return self._trees[folder]

    def resolve_definition(self, path: Path) -> DefinitionResolution:
        if path not in self._definitions:
            tree = self.version_tree(path.parents[1])
            self._definitions[path] = resolve_definition(path, tree, self.config)
        return self._definitions[path]

    @cached_property
    def manifests(self) -> tuple[Path, ...]:
        """Every catalog manifest under the root, in path order."""
        found = self.root.glob(f"test-cases/*/*/*/*/{MANIFEST_FILE}")
        return tuple(sorted(p for p in found if ".tcab" not in p.parts))

    @cached_property
    def definitions(self) -> tuple[Path, ...]:
        """Every test-suite definition (`versions/<version>/test-cases/<name>.toml`)."""
        return tuple(sorted(self.root.glob("versions/*/test-cases/*.toml")))

    @cached_property
    def slug_index(self) -> SlugIndex:
        return build_slug_index(self)


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
