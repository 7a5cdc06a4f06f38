"""Seeding: what a run receives, planned from a resolved case and written into an empty folder.

Both layouts seed, in this order: the starter workspace (hidden entries left out, except
`.gitignore` and `.cargo`), the specs (templates rendered), the rendered references
(`reference/<view>.png`), static reference media, assets, engine documentation
(`.tcab/engines/<slug>/`), contract schemas, packages (`.tcab/packages/<name>/`), and the
rendered prompt (`.tcab/prompt.md`). Reporter-side material (review items, validation scripts,
baselines, reference implementations, descriptions, changelogs, errata, performance cases,
requirement validators) is never planned, so it can never be written. Two entries with one
destination are a problem located at the later declaration.

Under pytest, every case version has a `seed[<variant>]` (catalog) or `seed[<engine>]` /
`seed` (definitions) item. In author mode it checks the plan without writing; with
`--tcab-seed=SLUG[@VERSION][#VARIANT][:ENGINE] --tcab-out=DIR` that one item alone is
collected and writes DIR. An HTML mockup needs a browser: without one, everything else is
seeded and the item is skipped naming the screenshots it could not render (failed under
`--tcab-strict`).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import field
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from pytest_tcab.case import CaseVersion
from pytest_tcab.case import DefinitionCase
from pytest_tcab.case import SeededSpecification
from pytest_tcab.case import Variant
from pytest_tcab.errors import KeyPath
from pytest_tcab.errors import Problem
from pytest_tcab.errors import ProblemsFound
from pytest_tcab.errors import TcabError
from pytest_tcab.failures import is_plain
from pytest_tcab.failures import item_failure
from pytest_tcab.items import ProblemsItem
from pytest_tcab.items import header
from pytest_tcab.items import key_location
from pytest_tcab.layout import CONFIG_FILE
from pytest_tcab.models.definition import CODE_TYPES
from pytest_tcab.nodeids import OwnName
from pytest_tcab.nodeids import match_saved_form
from pytest_tcab.options import SEED_OPTION
from pytest_tcab.outcomes import skip_unless_strict
from pytest_tcab.paths import contained
from pytest_tcab.paths import is_inside
from pytest_tcab.paths import refusal
from pytest_tcab.prompts import Rendering
from pytest_tcab.prompts import as_problem
from pytest_tcab.prompts import catalog_prompt
from pytest_tcab.prompts import catalog_spec
from pytest_tcab.prompts import definition_prompt
from pytest_tcab.prompts import engine_docs_dest
from pytest_tcab.prompts import specification_dest
from pytest_tcab.resolve.common import where
from pytest_tcab.resolve.paths import dest_escapes
from pytest_tcab.run.spec import RunSpec
from pytest_tcab.session import experimental_allowed
from pytest_tcab.session import suite_for
from pytest_tcab.suite import FoundDefinition
from pytest_tcab.suite import Suite
from pytest_tcab.templates import TemplateError
from pytest_tcab.toml import TomlDocument

PROMPT_DEST = ".tcab/prompt.md"
PACKAGES_DEST = ".tcab/packages"
KEPT_HIDDEN = frozenset({".gitignore", ".cargo"})
"""Hidden entries a workspace keeps: everything else starting with a dot stays behind."""


def reference_dest(view: str) -> str:
    """Where a rendered mockup's screenshot is seeded."""
    return f"reference/{view}.png"


class SeedError(TcabError):
    """Seeding cannot start: the target folder is not empty (a missing case is a `CaseNotFound`)."""


# -- the plan ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Entry:
    """One file a run receives, where it lands, and which declaration put it there."""

    dest: str
    """POSIX path relative to the run workspace."""
    origin: tuple[TomlDocument, KeyPath]
    source: Path | None = None
    """A file copied byte for byte."""
    rendering: Rendering | None = None
    """A template rendered strictly."""
    compose: Callable[[], str] | None = None
    """A document assembled from suite material (a specification and its requirements)."""
    mockup: Path | None = None
    """An HTML mockup, rendered to a PNG screenshot by a browser."""


@dataclass
class SeedPlan:
    """Every entry in seeding order, and the problems found while planning."""

    folder: Path
    """The version folder: mockups are served from it."""
    entries: list[Entry] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    listings: dict[Path, tuple[tuple[Path, str], ...]] = field(default_factory=dict, repr=False)
    """Folder listings by folder: a suite shares one between its plans, so shared trees (packages,
    engine docs) are walked once per session rather than once per variant."""
    _files: dict[str, Entry] = field(default_factory=dict, init=False, repr=False)
    _dirs: dict[str, Entry] = field(default_factory=dict, init=False, repr=False)

    def add(self, entry: Entry) -> None:
        """Plan `entry` unless its destination escapes or collides with one already planned."""
        doc, key = entry.origin
        escape = dest_escapes(entry.dest)
        if escape is not None:
            self.problems.append(doc.problem(key, f"seeds {entry.dest!r}, which {escape}",
                                             "seeded paths stay inside the run workspace"))
            return
        parts = [part for part in entry.dest.replace("\\", "/").split("/") if part not in ("", ".")]
        dest = "/".join(parts)
        parents = ["/".join(parts[:end]) for end in range(len(parts) - 1, 0, -1)]
        clash = self._files.get(dest) or self._dirs.get(dest) or next(
            (self._files[p] for p in parents if p in self._files), None)
        if clash is not None:
            first_doc, first_key = clash.origin
            self.problems.append(doc.problem(
                key, f"seeds {dest!r}, which collides with what {where(first_doc, first_key, self.folder)} seeds",
                "seeded destinations must be distinct; give one of them another path"))
            return
        self._files[dest] = entry
        for parent in parents:
            self._dirs.setdefault(parent, entry)
        self.entries.append(replace(entry, dest=dest))

    def add_tree(self, root: Path, dest: str, origin: tuple[TomlDocument, KeyPath]) -> None:
        """Plan a folder's files under `dest`, hidden entries left out except `.gitignore`/`.cargo`."""
        doc, key = origin
        try:
            listing = self._listing(root)
        except OSError as exc:
            self.problems.append(doc.problem(key, f"{_show(root, self.folder)} cannot be listed: {refusal(exc)}"))
            return
        for path, kind in listing:
            relative = f"{dest}/{path.name}" if dest else path.name
            if kind == "outside":
                self.problems.append(doc.problem(key, f"{path.name!r} in {_show(root, self.folder)} is a symlink "
                                                 "that leads outside it", "seed real files, or links inside the folder"))
            elif kind == "dir":
                self.add_tree(path, relative, origin)
            elif kind == "file":
                self.add(Entry(relative, origin, source=path))
            else:
                self.problems.append(doc.problem(key, f"{path.name!r} in {_show(root, self.folder)} is neither a file "
                                                 "nor a folder (a broken symlink, a loop, a pipe?)",
                                                 "seed real files and folders"))

    def _listing(self, root: Path) -> tuple[tuple[Path, str], ...]:
        """The seedable entries of `root` and what each is, looked at once per `listings` memo."""
        listed = self.listings.get(root)
        if listed is None:
            with os.scandir(root) as listing:
                entries = sorted(listing, key=lambda entry: entry.name)
            listed = self.listings[root] = tuple(
                (Path(entry.path), _kind(root, entry)) for entry in entries
                if not entry.name.startswith(".") or entry.name in KEPT_HIDDEN)
        return listed

    def add_path(self, path: Path, dest: str, origin: tuple[TomlDocument, KeyPath]) -> None:
        """A file, or a folder seeded recursively."""
        if path.is_dir():
            self.add_tree(path, dest, origin)
        else:
            self.add(Entry(dest, origin, source=path))


def _kind(root: Path, entry: os.DirEntry[str]) -> str:
    """`outside` for a symlink leaving `root`, else `dir`, `file`, or `other` (a problem).

    Only a symlink can lead anywhere else; any other entry is what the listing says it is."""
    if entry.is_symlink():
        path = Path(entry.path)
        if not is_inside(root, path):
            return "outside"
        return "dir" if path.is_dir() else "file" if path.is_file() else "other"
    try:
        return "dir" if entry.is_dir(follow_symlinks=False) else "file" if entry.is_file(follow_symlinks=False) else "other"
    except OSError:
        return "other"


def _show(path: Path, folder: Path) -> str:
    try:
        return path.relative_to(folder).as_posix() + "/"
    except ValueError:
        return str(path)


def plan_catalog(case: CaseVersion, variant: Variant, suite: Suite) -> SeedPlan:
    """What a run of `variant` receives; the declarations are located in the manifest or variant file."""
    plan = SeedPlan(case.folder, listings=suite.listings)
    manifest, own = _catalog_docs(suite, case, variant.slug)

    def origin(table: str, common_count: int, index: int, leaf: str) -> tuple[TomlDocument, KeyPath]:
        """Common entries come first in a variant's tuples, then the variant file's own."""
        if index < common_count or own is None:
            return manifest, (table, index, leaf)
        return own, (table, index - common_count, leaf)

    if variant.workspace is not None:
        declared = own if own is not None and "workspace" in own.data else manifest
        plan.add_tree(variant.workspace, "", (declared, ("workspace",)))
    common_specs = len(_array(manifest, "spec"))
    for i, spec in enumerate(variant.specs):
        where_ = origin("spec", common_specs, i, "dest" if spec.dest else "source")
        if spec.is_template:
            plan.add(Entry(spec.seeded_dest, where_, rendering=catalog_spec(case, variant, spec)))
        else:
            plan.add(Entry(spec.seeded_dest, where_, source=case.folder / spec.source))
    common_refs = len(_array(manifest, "reference"))
    for i, ref in enumerate(variant.references):
        if ref.path is not None:
            plan.add(Entry(reference_dest(ref.view), origin("reference", common_refs, i, "path"),
                           mockup=case.folder / ref.path))
    for i, ref in enumerate(variant.references):
        if ref.media is not None:
            plan.add(Entry(ref.media, origin("reference", common_refs, i, "media"), source=case.folder / ref.media))
    for i, asset in enumerate(case.assets):
        plan.add_path(case.folder / asset, asset, (manifest, ("assets", i)))
    if case.performance is not None:
        for key in ("input", "output"):
            relative = getattr(case.performance.contract, key)
            plan.add(Entry(relative, (manifest, ("contract", key)), source=case.folder / relative))
    for i, name in enumerate(case.packages):
        package = suite.config.packages.get(name)
        if package is None:
            continue  # an unknown package is its resolve item's problem
        plan.add_tree(suite.root / package.path, f"{PACKAGES_DEST}/{name}", (manifest, ("packages", i)))
    plan.add(Entry(PROMPT_DEST, (manifest, ("prompt",)), rendering=catalog_prompt(case, variant)))
    return plan


def _catalog_docs(suite: Suite, case: CaseVersion, variant: str) -> tuple[TomlDocument, TomlDocument | None]:
    """The manifest and the file of `variant`: planning points at the line that declared an entry."""
    manifest = suite.load(case.manifest_path)
    if isinstance(manifest, Problem):  # changed on disk since it resolved
        raise ProblemsFound([manifest])
    for relative in _array(manifest, "variants"):
        if not isinstance(relative, str):
            continue  # a variant entry that is no path is its resolve item's problem
        loaded = suite.load(case.folder / relative)
        if isinstance(loaded, TomlDocument) and loaded.data.get("slug", Path(relative).stem) == variant:
            return manifest, loaded
    return manifest, None


def _array(doc: TomlDocument, key: str) -> list[Any]:
    """An array of `doc` as written; a partial case's document may hold anything there."""
    value = doc.data.get(key, [])
    return value if isinstance(value, list) else []


def plan_definition(case: DefinitionCase, engine: str, suite: Suite) -> SeedPlan:
    """What a run of the definition on `engine` receives."""
    plan = SeedPlan(case.folder, listings=suite.listings)
    doc = suite.load(case.path)
    if isinstance(doc, Problem):  # changed on disk since it resolved
        raise ProblemsFound([doc])
    workspace = case.workspaces.get(engine)
    if workspace is not None:
        key: KeyPath = ("workspaces", engine) if case.case_type in CODE_TYPES else ("workspace",)
        plan.add_tree(workspace, "", (doc, key))
    for spec in case.specifications:
        plan.add(Entry(specification_dest(spec.path), _located(suite, spec.source, ("path",), doc),
                       compose=partial(specification_document, spec)))
    for asset in case.assets:
        for i, name in enumerate(asset.files):
            plan.add(Entry(f"assets/{asset.id}/{name}", _located(suite, asset.source, ("files", i), doc),
                           source=asset.folder / name))
    declared = suite.config.engines.get(engine)
    if declared is not None and declared.docs is not None:
        origin = _located(suite, suite.root / CONFIG_FILE, ("engines", engine, "docs"), doc)
        plan.add_tree(suite.root / declared.docs, engine_docs_dest(engine), origin)
    for relative in case.schemas:
        plan.add(Entry(relative, (doc, ("contract",)), source=case.folder / relative))
    plan.add(Entry(PROMPT_DEST, (doc, ("prompt",)), rendering=definition_prompt(case, engine, suite.config)))
    return plan


def _located(suite: Suite, path: Path, key: KeyPath, fallback: TomlDocument) -> tuple[TomlDocument, KeyPath]:
    """Where `key` of the file at `path` is declared; the definition itself if that file is unreadable."""
    loaded = suite.load(path)
    return (loaded, key) if isinstance(loaded, TomlDocument) else (fallback, ())


def specification_document(spec: SeededSpecification) -> str:
    """The seeded document: the specification's prose, then its requirements."""
    text = spec.prose.read_text(encoding="utf-8").rstrip("\n") + "\n"
    if spec.requirements:
        text += "\n## Requirements\n\n"
        text += "".join(f"- **{r.id}** ({r.kind}): {r.text}\n" for r in spec.requirements)
    return text


# -- writing ----------------------------------------------------------------------------------


@dataclass
class Seeded:
    """What a seed wrote, and the screenshots it could not render."""

    out: Path
    written: list[str]
    unrendered: list[str]


def write_plan(plan: SeedPlan, out: Path) -> tuple[list[str], list[Entry]]:
    """Write every entry but the mockups into `out`, which must be new or empty.

    Templates are rendered first, all of them, so a template error writes nothing.
    """
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise SeedError(f"{out} is not an empty folder; seed into a new or empty one")
    texts: dict[str, str] = {}
    problems: list[Problem] = []
    for entry in plan.entries:
        if entry.rendering is not None:
            try:
                texts[entry.dest] = entry.rendering.render()
            except TemplateError as error:
                problems.append(as_problem(entry.rendering.template, error))
        elif entry.compose is not None:
            texts[entry.dest] = entry.compose()
    if problems:
        raise ProblemsFound(problems)
    written: list[str] = []
    mockups: list[Entry] = []
    for entry in plan.entries:
        if entry.mockup is not None:
            mockups.append(entry)
            continue
        target = contained(out, entry.dest)
        target.parent.mkdir(parents=True, exist_ok=True)
        if entry.source is not None:
            shutil.copyfile(entry.source, target)
            shutil.copymode(entry.source, target)
        else:
            target.write_bytes(texts[entry.dest].encode("utf-8"))
        written.append(entry.dest)
    return written, mockups


def render_mockups(request: pytest.FixtureRequest, folder: Path, mockups: list[Entry], out: Path) -> str | None:
    """Screenshot each mockup into `out` with the session's browser; the reason when there is none."""
    from pytest_tcab.run.browser.discovery import NO_BROWSER_REASON
    from pytest_tcab.run.browser.discovery import find_chromium
    from pytest_tcab.run.browser.driving import render_mockup
    from pytest_tcab.run.browser.serve import StaticServer
    from pytest_tcab.run.browser.session import DEFAULT_VIEWPORT

    if find_chromium(request.config.getoption("tcab_chromium", None)) is None:
        return NO_BROWSER_REASON
    browser = request.getfixturevalue("tcab_browser")
    viewport = request.config.getoption("tcab_viewport", None) or DEFAULT_VIEWPORT
    context = browser.new_context(viewport)
    try:
        with StaticServer(folder) as server:
            for entry in mockups:
                assert entry.mockup is not None
                url = server.url_for("/", entry.mockup.relative_to(folder).as_posix())
                target = contained(out, entry.dest)
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(render_mockup(context, url, viewport))
    finally:
        context.close()
    return None


# -- pytest -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class SeedTarget:
    """What `--tcab-seed` names, found when the session starts."""

    path: Path
    """The manifest or definition file whose seed item runs."""
    choice: str
    """The variant (catalog) or engine (definition) to seed."""
    out: Path


seed_key = pytest.StashKey[SeedTarget]()
seeded_key = pytest.StashKey[Seeded]()


def configure_seed(config: pytest.Config, root: Path | None) -> SeedTarget:
    """Find what `--tcab-seed` names; a `pytest.UsageError` says what exists when it is not there."""
    text = config.getoption("tcab_seed")
    out = config.getoption("tcab_out")
    if root is None:
        raise pytest.UsageError(f"{SEED_OPTION} needs --tcab-suite=SUITE: the suite that holds the case")
    if config.getoption("tcab_run") is not None:
        raise pytest.UsageError(f"{SEED_OPTION} and --tcab-run are different modes; use one")
    if not out:
        raise pytest.UsageError(f"{SEED_OPTION} needs --tcab-out=DIR: the empty folder to seed into")
    suite = suite_for(config, root / CONFIG_FILE)
    try:
        spec = RunSpec.parse(text)
        path, choice, experimental = _find_target(suite, spec)
    except TcabError as exc:
        raise pytest.UsageError(f"{SEED_OPTION}={text}: {exc}") from None
    if experimental and not experimental_allowed(config):
        raise pytest.UsageError(f"{SEED_OPTION}={text}: the case is experimental; pass --tcab-experimental "
                                "(or set TCAB_BACKEND_ALLOW_EXPERIMENTAL=1) to seed it")
    return SeedTarget(path, choice, Path(out).resolve())


def _find_target(suite: Suite, spec: RunSpec) -> tuple[Path, str, bool]:
    """The file whose seed item writes, the variant or engine it seeds, and whether it is experimental."""
    found = suite.find(spec.case, spec.version, spec.variant, spec.engine)
    if isinstance(found, FoundDefinition):
        return found.case.path, found.engine, found.experimental
    return found.case.manifest_path, found.variant.slug, found.experimental


class SeedItem(OwnName, pytest.Function):
    """`seed[...]`: the seeding plan of one variant or engine; with `--tcab-seed`, written to DIR."""

    experimental = False

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        match_saved_form(self)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException]) -> Any:  # type: ignore[override]
        if is_plain(excinfo.value):
            return item_failure(self, excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        """The workspace key: where the seeding plan starts."""
        path, line = key_location(self.path, ("workspace",))
        return path, (line - 1) if line else 0, header(self)


def seed_item(parent: pytest.Collector, name: str, plan: Callable[[], SeedPlan], out: Path | None,
              experimental: bool) -> pytest.Item:
    """A seed item: a plan check in author mode, the seeding itself when `out` is given.

    The check is a plain problems item (a catalog has one per variant: fixtures would cost more
    than the plan); the seeding is a closure, so pytest hands it the `request` fixture (the browser).
    """
    if out is None:
        return ProblemsItem.from_parent(parent, name=name, check=lambda: plan().problems, experimental=experimental)

    def seed(request: pytest.FixtureRequest) -> None:
        built = plan()
        if built.problems:
            raise ProblemsFound(built.problems, request.config.rootpath)
        if out is None:
            return
        try:
            written, mockups = write_plan(built, out)
        except ProblemsFound as found:
            raise ProblemsFound(found.problems, request.config.rootpath) from None
        reason = render_mockups(request, built.folder, mockups, out) if mockups else None
        unrendered = [entry.dest for entry in mockups] if reason else []
        written.extend(entry.dest for entry in mockups if not reason)
        request.config.stash[seeded_key] = Seeded(out, written, unrendered)
        if reason:
            skip_unless_strict(request.config, f"seeded {len(written)} files into {out}, but not the "
                               f"rendered references {', '.join(unrendered)}: {reason}")

    item = SeedItem.from_parent(parent, name=name, callobj=seed)
    item.experimental = experimental
    return item


def catalog_seed_items(parent: pytest.Collector, suite: Suite, case: CaseVersion,
                       experimental: bool) -> list[pytest.Item]:
    """`seed[<variant>]` per variant; only the targeted one, writing, under `--tcab-seed`."""
    target = parent.config.stash.get(seed_key, None)
    return [
        seed_item(parent, f"seed[{variant.slug}]", partial(_plan_variant, suite, case.manifest_path, variant.slug),
                  target.out if target is not None else None, experimental)
        for variant in case.variants
        if target is None or (target.path == case.manifest_path and target.choice == variant.slug)
    ]


def _plan_variant(suite: Suite, manifest: Path, slug: str) -> SeedPlan:
    """`plan_catalog` of a variant, the case taken from the suite when the item runs: an item does
    not keep its case alive (`Suite.release`), it is resolved again if asked for after that."""
    case = suite.resolve(manifest).case
    variant = case.variant(slug) if case is not None else None
    if case is None or variant is None:  # the files changed since collection
        raise ProblemsFound(suite.resolve(manifest).problems)
    return plan_catalog(case, variant, suite)


def definition_seed_items(parent: pytest.Collector, suite: Suite, case: DefinitionCase,
                          experimental: bool) -> list[pytest.Item]:
    """`seed[<engine>]` per engine (`seed` for a type without engines); the targeted one under `--tcab-seed`."""
    target = parent.config.stash.get(seed_key, None)
    return [
        seed_item(parent, f"seed[{engine}]" if case.case_type in CODE_TYPES else "seed",
                  partial(plan_definition, case, engine, suite),
                  target.out if target is not None else None, experimental)
        for engine in case.engines
        if target is None or (target.path == case.path and target.choice == engine)
    ]


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    seeded = config.stash.get(seeded_key, None)
    if seeded is None:
        return
    terminalreporter.write_sep("-", "tcab seed")
    terminalreporter.write_line(f"seeded {len(seeded.written)} files into {seeded.out}; "
                                f"the prompt is {seeded.out / PROMPT_DEST}")
    if seeded.unrendered:
        terminalreporter.write_line(f"not rendered (no browser): {', '.join(seeded.unrendered)}")
