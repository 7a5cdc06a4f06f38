"""Resolve the test-suite layout (`spec/definitions.md`): every rule, every problem, located.

A suite version folder (`versions/<version>/`) is read once into a `VersionTree`: its
`version.toml`, every specification and every asset, each with its own problems. A definition
is then resolved against that tree: its shape (by the model its `type` names), its paths, its
engines and workspaces, the specifications it covers and the asset it names. A definition
inherits the problems of the specifications and assets it would seed or produce, since it
cannot run while they are broken.
"""

from __future__ import annotations

import dataclasses
import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any

from pytest_tcab.case import DefinitionCase
from pytest_tcab.case import SeededSpecification
from pytest_tcab.case import SuppliedAsset
from pytest_tcab.errors import KeyPath
from pytest_tcab.errors import Problem
from pytest_tcab.models.definition import ASSET_TYPES
from pytest_tcab.models.definition import CODE_TYPES
from pytest_tcab.models.definition import DEFINITION_MODELS
from pytest_tcab.models.definition import KEY_OWNERS
from pytest_tcab.models.definition import PENDING_TYPES
from pytest_tcab.models.definition import AdversarialDefinition
from pytest_tcab.models.definition import Asset
from pytest_tcab.models.definition import CodeDefinition
from pytest_tcab.models.definition import Definition
from pytest_tcab.models.definition import PerformanceDefinition
from pytest_tcab.models.definition import Specification
from pytest_tcab.models.definition import VersionInfo
from pytest_tcab.models.definition import asset_kind_for
from pytest_tcab.models.definition import asset_table
from pytest_tcab.models.fields import is_version
from pytest_tcab.models.suite import SuiteConfig
from pytest_tcab.models.validate import validate
from pytest_tcab.models.validate import validate_partial
from pytest_tcab.resolve.adversarial import adversarial_problems
from pytest_tcab.resolve.common import indefinite
from pytest_tcab.resolve.common import suggest
from pytest_tcab.resolve.common import where
from pytest_tcab.resolve.manifest import performance_case_problems
from pytest_tcab.resolve.paths import Expect
from pytest_tcab.resolve.paths import check_path
from pytest_tcab.resolve.paths import dest_problems
from pytest_tcab.toml import TomlDocument
from pytest_tcab.toml import load

VERSION_FILE = "version.toml"
SPECIFICATION_FILE = "specification.toml"
PROSE_FILE = "specification.md"
ASSET_FILE = "asset.toml"
NO_ENGINE = "none"
"""The engine slug that is always known: no engine selected."""

_RFC2119 = re.compile(r"\b(MUST|REQUIRED|SHALL|SHOULD|RECOMMENDED|MAY|OPTIONAL)\b")
_RFC2119_ANY_CASE = re.compile(r"\b(must|required|shall|should|recommended|may|optional)\b", re.IGNORECASE)


def definition_version_folder(path: Path) -> Path | None:
    """The suite tree of `versions/<version>/test-cases/<name>.toml`, or None for other paths."""
    parents = path.parents
    if path.suffix == ".toml" and len(parents) > 2 and parents[0].name == "test-cases" and parents[2].name == "versions":
        return parents[1]
    return None


def version_folder_of(path: Path) -> Path | None:
    """The `versions/<version>/` folder `path` lies in (any depth), or None."""
    for child, parent in zip(path.parents, path.parents[1:]):
        if parent.name == "versions":
            return child
    return None


# -- the version tree ------------------------------------------------------------------------


@dataclass
class SpecificationResolution:
    """One `specification.toml`: its model when it validated, and its problems."""

    path: Path
    doc: TomlDocument | None
    spec: Specification | None
    problems: list[Problem] = field(default_factory=list)


@dataclass
class AssetResolution:
    """One `assets/<id>/asset.toml`: its model when it validated, and its problems."""

    path: Path
    doc: TomlDocument | None
    asset: Asset | None
    problems: list[Problem] = field(default_factory=list)


@dataclass
class VersionTree:
    """A suite version folder, read once: version.toml, specifications and assets."""

    folder: Path
    info: VersionInfo | None = None
    info_problems: list[Problem] | None = None
    """Problems of version.toml; None when the folder has no version.toml."""
    specifications: list[SpecificationResolution] = field(default_factory=list)
    assets: list[AssetResolution] = field(default_factory=list)

    def specification(self, spec_id: str) -> SpecificationResolution | None:
        """The first specification (in path order) declaring `spec_id`."""
        return next((s for s in self.specifications if s.spec is not None and s.spec.id == spec_id), None)

    def asset(self, asset_id: str) -> AssetResolution | None:
        return next((a for a in self.assets if a.asset is not None and a.asset.id == asset_id), None)

    def file_problems(self, path: Path) -> list[Problem]:
        """The problems of one file of the tree (version.toml, a specification, an asset)."""
        if path == self.folder / VERSION_FILE:
            return list(self.info_problems or [])
        entries: list[SpecificationResolution | AssetResolution] = [*self.specifications, *self.assets]
        for entry in entries:
            if entry.path == path:
                return list(entry.problems)
        return []


def resolve_tree(folder: Path) -> VersionTree:
    """Read `folder`'s version.toml, specifications and assets, checking each."""
    tree = VersionTree(folder)
    info_path = folder / VERSION_FILE
    if info_path.is_file():
        tree.info_problems = []
        loaded = load(info_path)
        if isinstance(loaded, Problem):
            tree.info_problems.append(loaded)
        else:
            tree.info, shape = validate(VersionInfo, loaded)
            tree.info_problems.extend(shape)
            tree.info_problems.extend(_version_info_rules(loaded, tree.info))
    for path in sorted(folder.glob(f"specifications/**/{SPECIFICATION_FILE}")):
        tree.specifications.append(_specification(folder, path))
    _unique_ids(tree)
    spec_ids = {s.spec.id for s in tree.specifications if s.spec is not None}
    for path in sorted(folder.glob(f"assets/*/{ASSET_FILE}")):
        tree.assets.append(_asset(path, spec_ids))
    return tree


def _version_info_rules(doc: TomlDocument, info: VersionInfo | None) -> list[Problem]:
    folder = doc.path.parent
    problems: list[Problem] = []
    if not is_version(folder.name):
        problems.append(doc.problem((), f"lives in version folder {folder.name!r}, which is not vMAJOR.MINOR.PATCH",
                                    "name the folder like v1.0.0"))
    if info is None:
        return problems
    if folder.name not in (info.version, f"v{info.version}"):
        problems.append(doc.problem(("version",), f"version {info.version!r} differs from its folder {folder.name!r}",
                                    "runs record the folder's name; make the two agree (with or without the "
                                    "leading 'v')"))
    problems.extend(check_path(doc, folder, ("changelog",), info.changelog, "file", "changelog")[1])
    if info.description is not None:
        problems.extend(check_path(doc, folder, ("description",), info.description, "file", "description")[1])
    return problems


def _specification(folder: Path, path: Path) -> SpecificationResolution:
    loaded = load(path)
    if isinstance(loaded, Problem):
        return SpecificationResolution(path, None, None, [loaded])
    spec, problems = validate(Specification, loaded)
    result = SpecificationResolution(path, loaded, spec, list(problems))
    if not (path.parent / PROSE_FILE).is_file():
        result.problems.append(loaded.problem((), f"has no {PROSE_FILE} beside it",
                                              f"write the specification's prose in {PROSE_FILE} next to {path.name}"))
    if spec is None:
        return result
    result.problems.extend(dest_problems(loaded, ("path",), spec.path, "specs/"))
    for i, requirement in enumerate(spec.requirement):
        key: KeyPath = ("requirement", i)
        if _RFC2119.search(requirement.text) is None:
            lower = _RFC2119_ANY_CASE.search(requirement.text)
            hint = (f"write {lower.group(0)!r} in capitals: {lower.group(0).upper()}" if lower
                    else "state it with MUST, MUST NOT, SHOULD, SHOULD NOT or MAY")
            result.problems.append(loaded.problem(key + ("text",), "requirement text carries no RFC 2119 keyword in "
                                                  "capitals (MUST, SHALL, SHOULD, MAY, REQUIRED, RECOMMENDED, "
                                                  "OPTIONAL)", hint))
        for j, validator in enumerate(requirement.validators):
            result.problems.extend(check_path(loaded, folder / "validators", key + ("validators", j), validator,
                                              "file", "validator")[1])
    return result


def _unique_ids(tree: VersionTree) -> None:
    """Specification ids and requirement ids are unique in the suite version."""
    specs: dict[str, tuple[TomlDocument, KeyPath]] = {}
    requirements: dict[str, tuple[TomlDocument, KeyPath]] = {}
    for entry in tree.specifications:
        if entry.spec is None or entry.doc is None:
            continue
        _claim(specs, entry.spec.id, entry.doc, ("id",), "specification id", tree.folder, entry.problems)
        for i, requirement in enumerate(entry.spec.requirement):
            _claim(requirements, requirement.id, entry.doc, ("requirement", i, "id"), "requirement id",
                   tree.folder, entry.problems)


def _claim(taken: dict[str, tuple[TomlDocument, KeyPath]], value: str, doc: TomlDocument, key: KeyPath,
           what: str, folder: Path, into: list[Problem]) -> None:
    if value in taken:
        first_doc, first_key = taken[value]
        into.append(doc.problem(key, f"{what} {value!r} is already declared by {where(first_doc, first_key, folder)}",
                                "ids are unique in the suite version"))
    else:
        taken[value] = (doc, key)


def _asset(path: Path, spec_ids: set[str]) -> AssetResolution:
    loaded = load(path)
    if isinstance(loaded, Problem):
        return AssetResolution(path, None, None, [loaded])
    asset, problems = validate(Asset, loaded)
    result = AssetResolution(path, loaded, asset, list(problems))
    if asset is None:
        return result
    if asset.id != path.parent.name:
        result.problems.append(loaded.problem(("id",), f"id {asset.id!r} differs from its folder "
                                              f"assets/{path.parent.name}/",
                                              "an asset lives at assets/<id>/asset.toml; make the two agree"))
    if asset.specification not in spec_ids:
        result.problems.append(loaded.problem(("specification",), f"specification {asset.specification!r} is not "
                                              "declared in this suite version", suggest(asset.specification, spec_ids,
                                                                                         "specification ids")))
    for i, name in enumerate(asset.files):
        result.problems.extend(check_path(loaded, path.parent, ("files", i), name, "file", "asset file")[1])
    return result


# -- definitions ------------------------------------------------------------------------------


@dataclass
class DefinitionResolution:
    """What resolving one definition found: its problems, and the case as far as it resolves."""

    path: Path
    slug: str
    experimental: bool = False
    problems: list[Problem] = field(default_factory=list)
    case: DefinitionCase | None = None
    """Whole when `clean`; else without what failed. Author mode renders and plans it either way;
    run mode and seeding take a clean case only."""

    @property
    def clean(self) -> bool:
        return self.case is not None and not self.problems


def resolve_definition(path: Path, tree: VersionTree, config: SuiteConfig | None) -> DefinitionResolution:
    """Resolve the definition at `path` against its version tree and the suite's configuration
    (None when the suite has no tcab.toml: its engines are then known by the definitions' slugs)."""
    result = DefinitionResolution(path, path.stem)
    loaded = load(path)
    if isinstance(loaded, Problem):
        result.problems.append(loaded)
        return result
    result.experimental = loaded.data.get("experimental") is True
    _DefinitionResolver(loaded, tree, config, result).run()
    return result


class _DefinitionResolver:
    def __init__(self, doc: TomlDocument, tree: VersionTree, config: SuiteConfig | None,
                 result: DefinitionResolution) -> None:
        self.doc = doc
        self.tree = tree
        self.folder = tree.folder
        self.config = config
        self.result = result
        self.problems = result.problems

    def run(self) -> None:
        doc = self.doc
        if self.tree.info_problems is None:
            self.problems.append(Problem(doc.path, None, (), f"the suite version {self.folder.name} has no "
                                         f"{VERSION_FILE}", f"add {self.folder.name}/{VERSION_FILE} with version, "
                                         "tags and changelog"))
        case_type = self._type()
        if case_type is None:
            return
        partial = validate_partial(DEFINITION_MODELS[case_type], self._owned_keys(case_type))
        self.problems.extend(partial.problems)
        model = partial.model
        if model is None:
            return
        self._path(("prompt",), model.prompt, "file", "prompt template")
        engines, workspaces = self._engines(model)
        specifications = self._specifications(model)
        schemas = self._wasm_tables(model)
        produced = self._asset_table(model)
        self._output(model)
        supplied = self._supplied_assets(model, specifications)
        self.result.case = DefinitionCase(
            slug=self.doc.path.stem,
            version=self.folder.name,
            case_type=case_type,
            folder=self.folder,
            path=self.doc.path,
            name=model.name,
            prompt=self.folder / model.prompt,
            max_runtime_hours=model.max_runtime_hours,
            init=model.init,
            engines=engines,
            workspaces=workspaces,
            specifications=specifications,
            assets=supplied,
            schemas=schemas,
            produces=produced,
            model=model,
        )

    def _path(self, key: KeyPath, relative: str, expect: Expect, what: str) -> Path | None:
        target, problems = check_path(self.doc, self.folder, key, relative, expect, what)
        self.problems.extend(problems)
        return target

    def _type(self) -> str | None:
        doc = self.doc
        known = ", ".join(DEFINITION_MODELS)
        if "type" not in doc.data:
            self.problems.append(doc.problem((), "missing required key `type`", f"the test case type: one of {known}"))
            return None
        value = doc.data["type"]
        if value in PENDING_TYPES:
            self.problems.append(doc.problem(("type",), f"type {value!r} has no test-suite form yet: "
                                             "spec/definitions.md leaves it TBD",
                                             "author the case in the catalog layout "
                                             "(test-cases/<type>/<difficulty>/<folder>/<version>/test-case.toml)"))
            return None
        if not isinstance(value, str) or value not in DEFINITION_MODELS:
            close = difflib.get_close_matches(str(value), list(DEFINITION_MODELS), n=1)
            self.problems.append(doc.problem(("type",), f"unknown type {value!r}",
                                             f"did you mean {close[0]!r}?" if close else f"one of {known}"))
            return None
        return value

    def _owned_keys(self, case_type: str) -> TomlDocument:
        """The document without the keys other types own, each reported with whose it is.

        The strict model would call them unknown keys; the author deserves the actual reason.
        """
        doc = self.doc
        kept: dict[str, Any] = {}
        for key, value in doc.data.items():
            owners = KEY_OWNERS.get(key)
            if owners is None or case_type in owners:
                kept[key] = value
                continue
            self.problems.append(doc.problem((key,), _not_owned(key, case_type, owners), _owned_hint(key, case_type)))
        return dataclasses.replace(doc, data=kept)

    def _engines(self, model: Definition) -> tuple[tuple[str, ...], dict[str, Path]]:
        if not isinstance(model, CodeDefinition):
            workspace = getattr(model, "workspace", None)
            found = self._path(("workspace",), workspace, "dir", "workspace") if workspace is not None else None
            return (NO_ENGINE,), ({NO_ENGINE: found} if found is not None else {})
        doc = self.doc
        known = {NO_ENGINE, *self.config.engines} if self.config is not None else None
        seen: set[str] = set()
        for i, engine in enumerate(model.engines):
            if engine in seen:
                self.problems.append(doc.problem(("engines", i), f"engine {engine!r} is listed twice"))
            seen.add(engine)
            if known is not None and engine not in known:
                self.problems.append(doc.problem(
                    ("engines", i), f"engine {engine!r} is not known",
                    f"known engines: {', '.join(sorted(known))} (`none` is always known; others are declared as "
                    "[engines.<slug>] in the suite's tcab.toml)"))
        workspaces: dict[str, Path] = {}
        for engine in model.engines:
            if engine not in model.workspaces:
                self.problems.append(doc.problem(("workspaces",), f"has no entry for engine {engine!r}",
                                                 f'map it to its starter folder: {engine} = "workspaces/<slug>"'))
        for engine, relative in model.workspaces.items():
            if engine not in seen:
                self.problems.append(doc.problem(("workspaces", engine), f"engine {engine!r} is not one of the "
                                                 "definition's `engines`",
                                                 "[workspaces] carries one entry per declared engine; remove it or "
                                                 "add the engine to `engines`"))
                continue
            found = self._path(("workspaces", engine), relative, "dir", "workspace")
            if found is not None:
                workspaces[engine] = found
        return tuple(dict.fromkeys(model.engines)), workspaces

    def _specifications(self, model: Definition) -> tuple[SeededSpecification, ...]:
        """The covered specifications, in the order listed (path order by default), with their problems."""
        doc = self.doc
        covered: list[tuple[KeyPath, SpecificationResolution]] = []
        if model.specifications is None:
            covered = [(("specifications",), entry) for entry in self.tree.specifications]
        else:
            known = {s.spec.id for s in self.tree.specifications if s.spec is not None}
            for i, spec_id in enumerate(model.specifications):
                key: KeyPath = ("specifications", i)
                entry = self.tree.specification(spec_id)
                if spec_id in model.specifications[:i]:
                    self.problems.append(doc.problem(key, f"specification {spec_id!r} is listed twice"))
                elif entry is None:
                    self.problems.append(doc.problem(key, f"specification {spec_id!r} is not declared in this suite "
                                                     "version", suggest(spec_id, known, "specification ids")))
                else:
                    covered.append((key, entry))
        seeded: list[SeededSpecification] = []
        for key, entry in covered:
            self._depends_on(key, f"specification {entry.spec.id if entry.spec else entry.path.parent.name!r}", entry)
            if entry.spec is not None:
                seeded.append(SeededSpecification(id=entry.spec.id, name=entry.spec.name, summary=entry.spec.summary,
                                                  path=entry.spec.path, source=entry.path,
                                                  prose=entry.path.parent / PROSE_FILE,
                                                  requirements=tuple(entry.spec.requirement)))
        return tuple(seeded)

    def _wasm_tables(self, model: Definition) -> tuple[str, ...]:
        """Path rules of the performance and adversarial tables; the schemas a run is seeded with."""
        if not isinstance(model, (PerformanceDefinition, AdversarialDefinition)):
            return ()
        keys = ("input", "output") if isinstance(model, PerformanceDefinition) else ("world", "action")
        schemas = tuple(getattr(model.contract, key) for key in keys)
        seeded = [self.folder / relative for relative in schemas]
        seeded.extend([self.folder / model.workspace] if model.workspace is not None else [])
        if isinstance(model, AdversarialDefinition):
            self.problems.extend(adversarial_problems(self.doc, self.folder, model, seeded=seeded))
            return schemas
        for key, relative in zip(keys, schemas):
            self._path(("contract", key), relative, "file", f"contract {key} schema")
        self.problems.extend(performance_case_problems(self.doc, self.folder, model.case, seeded=seeded))
        return schemas

    def _asset_table(self, model: Definition) -> SuppliedAsset | None:
        """The `[<type>].id` of an asset-producing definition must name an asset of a fitting kind."""
        table = asset_table(model)
        if table is None:
            return None
        key: KeyPath = (model.type, "id")
        entry = self.tree.asset(table.id)
        if entry is None or entry.asset is None:
            known = {a.asset.id for a in self.tree.assets if a.asset is not None}
            self.problems.append(self.doc.problem(key, f"asset {table.id!r} is not declared under assets/",
                                                  f"add assets/{table.id}/asset.toml, or "
                                                  f"{suggest(table.id, known, 'asset ids')}"))
            return None
        self._depends_on(key, f"asset {table.id!r}", entry)
        wanted = asset_kind_for(model)
        if entry.asset.kind != wanted:
            sheet = f" (sheet = {'true' if wanted == 'sprite-sheet' else 'false'})" if model.type == "sprite" else ""
            self.problems.append(self.doc.problem(key, f"asset {table.id!r} is {indefinite(entry.asset.kind)}, but "
                                                  f"{indefinite(model.type)} definition{sheet} produces {indefinite(str(wanted))}",
                                                  _kind_hint(model.type, entry.asset.kind)))
        return _asset_of(entry)

    def _depends_on(self, key: KeyPath, what: str, entry: SpecificationResolution | AssetResolution) -> None:
        """A definition cannot run while a file it seeds or produces is broken. One problem says so and
        names that file, whose own `resolve` item lists its problems: each is reported there, once."""
        if not entry.problems:
            return
        count = len(entry.problems)
        relative = entry.path.relative_to(self.folder).as_posix()
        self.problems.append(self.doc.problem(
            key, f"{what} does not resolve: {relative} has {count} problem{'s' if count != 1 else ''}",
            f"they are reported by {relative}::resolve; fix them there"))

    def _output(self, model: Definition) -> None:
        """A Blender definition's `[output] actions` is written by the model inside the run."""
        output = getattr(model, "output", None)
        if output is None:
            return
        self.problems.extend(dest_problems(self.doc, ("output", "actions"), output.actions, "the run root"))

    def _supplied_assets(self, model: Definition, specs: tuple[SeededSpecification, ...]) -> tuple[SuppliedAsset, ...]:
        """End to end runs are given every asset their specifications describe; no other type is."""
        if model.type != "end-to-end":
            return ()
        covered = {s.id for s in specs}
        supplied = []
        for entry in self.tree.assets:
            if entry.asset is None or entry.asset.specification not in covered:
                continue
            self._depends_on(("specifications",), f"asset {entry.asset.id!r}", entry)
            supplied.append(_asset_of(entry))
        return tuple(supplied)


def _asset_of(entry: AssetResolution) -> SuppliedAsset:
    assert entry.asset is not None, "only assets that validated"
    return SuppliedAsset(id=entry.asset.id, kind=entry.asset.kind, folder=entry.path.parent,
                         files=tuple(entry.asset.files), source=entry.path)


def _not_owned(key: str, case_type: str, owners: tuple[str, ...]) -> str:
    if key in ASSET_TYPES:
        own = f"`[{case_type}]`" if case_type in ASSET_TYPES else "no type table"
        return f"`[{key}]` is the table of {key} definitions; {indefinite(case_type)} definition carries {own}"
    table = {"case": "`[[case]]`"}.get(key, f"`[{key}]`" if key not in ("engines", "workspace") else f"`{key}`")
    return f"{table} is declared by {_types(owners)} definitions only, not by {indefinite(case_type)} definition"


def _owned_hint(key: str, case_type: str) -> str:
    if key in ASSET_TYPES:
        return "a definition carries the one table its type requires, and that table alone"
    if key == "workspace" and case_type in CODE_TYPES:
        return "a code-producing definition maps each engine to its starter folder in [workspaces]"
    if key in ("engines", "workspaces") and case_type in ("performance", "adversarial"):
        return "a performance or adversarial definition declares no engines; it names its starter folder with " \
               "`workspace`"
    return "remove it"


def _types(types: Iterable[str]) -> str:
    names = list(types)
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _kind_hint(case_type: str, kind: str) -> str:
    if case_type != "sprite":
        return f"name an asset whose kind is {case_type}"
    if kind == "sprite":
        return "set sheet = false, or name a sprite-sheet asset"
    if kind == "sprite-sheet":
        return "set sheet = true, or name a sprite asset"
    return "name an asset whose kind is sprite (or sprite-sheet, with sheet = true)"
