"""Resolve a catalog case version (`spec/manifests.md`): every rule, every problem, located.

Resolution reads the manifest, its variant files and its errata, then checks the rules in
the order the spec states them. Nothing stops at the first problem: each rule appends to
the problems of the scope it belongs to (the common manifest, one variant, the errata), and
a `CaseVersion` is built only when none was found.
"""

from __future__ import annotations

import difflib
import json
from collections import Counter
from collections.abc import Iterable
from collections.abc import Iterator
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path

from pytest_tcab.case import CaseVersion
from pytest_tcab.case import ChecklistItem
from pytest_tcab.case import Performance
from pytest_tcab.case import Variant
from pytest_tcab.case import VerdictUnit
from pytest_tcab.errors import KeyPath
from pytest_tcab.errors import Problem
from pytest_tcab.errors import format_key_path
from pytest_tcab.models.errata import ErrataFile
from pytest_tcab.models.errata import Erratum
from pytest_tcab.models.fields import is_version
from pytest_tcab.models.manifest import ROOT_KEYS
from pytest_tcab.models.manifest import Build
from pytest_tcab.models.manifest import Category
from pytest_tcab.models.manifest import CategoryItem
from pytest_tcab.models.manifest import Domain
from pytest_tcab.models.manifest import Manifest
from pytest_tcab.models.manifest import PerformanceManifest
from pytest_tcab.models.manifest import Proof
from pytest_tcab.models.manifest import Reference
from pytest_tcab.models.manifest import ReviewItem
from pytest_tcab.models.manifest import Validation
from pytest_tcab.models.manifest import VariantFile
from pytest_tcab.models.manifest import humanize
from pytest_tcab.models.performance import PerfCase
from pytest_tcab.models.suite import SuiteConfig
from pytest_tcab.models.validate import validate
from pytest_tcab.paths import is_inside
from pytest_tcab.resolve.paths import Expect
from pytest_tcab.resolve.paths import check_path
from pytest_tcab.toml import TomlDocument
from pytest_tcab.toml import load

CASE_TYPES = (
    "end-to-end",
    "full-stack",
    "sprite",
    "voxel",
    "blender",
    "particle",
    "music",
    "audio-fx",
    "performance",
    "adversarial",
    "puzzle",
)
CODE_TYPES = frozenset({"end-to-end", "full-stack"})
DEFAULT_VARIANT = "default"
"""The slug of the single implicit variant of a case that declares no `variants`."""
REVIEWED_TABLES = {"domain": "`[[domain]]`", "review": "`[review]`", "review_item": "`[[review_item]]`"}
"""What a reviewer scores: a performance case has none of it, since answers and fuel are its score."""


@dataclass
class Resolution:
    """What resolving one case version found: problems per scope, and the case if clean."""

    manifest_path: Path
    slug: str | None = None
    experimental: bool = False
    variant_slugs: list[str] = field(default_factory=list)
    common: list[Problem] = field(default_factory=list)
    by_variant: dict[str, list[Problem]] = field(default_factory=dict)
    errata: list[Problem] | None = None
    """Problems of errata.toml; None when the version has no errata file."""
    case: CaseVersion | None = None

    def problems_for(self, variant: str) -> list[Problem]:
        return self.common + self.by_variant.get(variant, [])


@dataclass(frozen=True)
class _Located:
    """A declaration and where it was written, so a cross-reference rule can point at it."""

    doc: TomlDocument
    key: KeyPath


def catalog_type(manifest_path: Path) -> tuple[str | None, str | None]:
    """The (`type`, `difficulty`) folders of `test-cases/<type>/<difficulty>/<folder>/<version>/`."""
    parents = manifest_path.parents
    if len(parents) > 5 and parents[4].name == "test-cases":
        return parents[3].name, parents[2].name
    return None, None


def resolve_version(manifest_path: Path, config: SuiteConfig, package_root: Path) -> Resolution:
    """Resolve `manifest_path` against the suite's configuration (its package store)."""
    result = Resolution(manifest_path)
    loaded = load(manifest_path)
    if isinstance(loaded, Problem):
        result.common.append(loaded)
        result.variant_slugs = [DEFAULT_VARIANT]
        return result
    _VersionResolver(loaded, config, package_root, result).run()
    return result


class _VersionResolver:
    def __init__(
        self, doc: TomlDocument, config: SuiteConfig, package_root: Path, result: Resolution
    ) -> None:
        self.doc = doc
        self.folder = doc.path.parent
        self.config = config
        self.package_root = package_root
        self.result = result
        self.common = result.common

    # -- the manifest ------------------------------------------------------------------
    def run(self) -> None:
        doc = self.doc
        folder_type, folder_difficulty = catalog_type(doc.path)
        declared_type = doc.data.get("type")
        case_type = declared_type if isinstance(declared_type, str) else folder_type
        self.case_type = case_type or "end-to-end"
        self.result.slug = doc.data.get("slug") if isinstance(doc.data.get("slug"), str) else None
        self.result.experimental = doc.data.get("experimental") is True
        self._layout(folder_type, folder_difficulty, declared_type)
        if case_type == "performance":
            perf, problems = validate(PerformanceManifest, self._unreviewed(), root_keys=ROOT_KEYS)
            self.common.extend(problems)
            self.result.variant_slugs = [DEFAULT_VARIANT]
            if perf is not None:
                self._performance(perf)
            return
        manifest, problems = validate(Manifest, doc, root_keys=ROOT_KEYS)
        self.common.extend(problems)
        self._review_grammar_exclusive()
        variant_docs = self._variant_docs(doc.data.get("variants"))
        if manifest is None:
            self.result.variant_slugs = [slug for slug, _ in variant_docs] or [DEFAULT_VARIANT]
            return
        variants = self._variants(manifest, variant_docs)
        self.result.variant_slugs = [slug for slug, _ in variants]
        self._common_rules(manifest, case_type or "end-to-end")
        resolved = [self._variant(manifest, slug, variant) for slug, variant in variants]
        errata = self._errata(resolved)
        if self.common or any(self.result.by_variant.values()) or self.result.errata:
            return
        self.result.case = CaseVersion(
            slug=manifest.slug,
            version=self.folder.name,
            case_type=case_type or "end-to-end",
            folder=self.folder,
            manifest_path=doc.path,
            name=manifest.name,
            prompt=self.folder / manifest.prompt,
            max_runtime_hours=manifest.max_runtime_hours,
            build=manifest.build,
            checks=tuple(manifest.check),
            handle=manifest.instrumentation.handle if manifest.instrumentation else None,
            assets=tuple(manifest.assets),
            packages=tuple(manifest.packages),
            variants=tuple(v for v in resolved if v is not None),
            errata=errata,
        )

    def _layout(self, folder_type: str | None, folder_difficulty: str | None, declared: object) -> None:
        doc = self.doc
        if folder_type is None:
            self.common.append(
                doc.problem((), "is not laid out as test-cases/<type>/<difficulty>/<folder>/<version>/test-case.toml",
                            "move the version folder under the suite's test-cases/ tree")
            )
            return
        if not is_version(self.folder.name):
            self.common.append(
                doc.problem((), f"lives in version folder {self.folder.name!r}, which is not vMAJOR.MINOR.PATCH",
                            "name the folder like v1.0.0")
            )
        if folder_type not in CASE_TYPES:
            self.common.append(
                doc.problem((), f"lives under test-cases/{folder_type}/, which is not a test case type",
                            f"one of {', '.join(CASE_TYPES)}")
            )
        if isinstance(declared, str) and declared != folder_type:
            self.common.append(
                doc.problem(("type",), f"type = {declared!r}, but the case lives under test-cases/{folder_type}/",
                            "the declared type and the type folder must agree")
            )
        difficulty = doc.data.get("difficulty")
        known = ("easy", "medium", "hard")
        if difficulty in known and folder_difficulty in known and difficulty != folder_difficulty:
            self.common.append(
                doc.problem(("difficulty",), f"difficulty = {difficulty!r}, but the case lives under "
                            f"test-cases/{folder_type}/{folder_difficulty}/",
                            "the difficulty and the difficulty folder must agree")
            )

    def _path(self, doc: TomlDocument, key: KeyPath, relative: str, expect: Expect, what: str,
              into: list[Problem]) -> Path | None:
        target, problems = check_path(doc, self.folder, key, relative, expect, what)
        into.extend(problems)
        return target

    def _review_grammar_exclusive(self) -> None:
        if "review" in self.doc.data and "review_item" in self.doc.data:
            self.common.append(
                self.doc.problem(("review",), "declares both a `[review]` table (categories grammar) and "
                                 "`[[review_item]]` entries (legacy grammar)",
                                 "the two grammars are mutually exclusive; keep one")
            )

    def _common_rules(self, manifest: Manifest, case_type: str) -> None:
        doc, out = self.doc, self.common
        self._path(doc, ("changelog",), manifest.changelog, "file", "changelog", out)
        self._path(doc, ("prompt",), manifest.prompt, "file", "prompt template", out)
        if manifest.description is not None:
            self._path(doc, ("description",), manifest.description, "file", "description", out)
        if manifest.workspace is not None:
            self._path(doc, ("workspace",), manifest.workspace, "dir", "workspace", out)
        for i, asset in enumerate(manifest.assets):
            self._path(doc, ("assets", i), asset, "any", "asset", out)
        for i, spec in enumerate(manifest.spec):
            self._path(doc, ("spec", i, "source"), spec.source, "file", "spec source", out)
        for i, ref in enumerate(manifest.reference):
            self._reference_file(doc, ("reference", i), ref.path, ref.media, out)
        if not manifest.domain:
            out.append(doc.problem(("domain",), "declares no `[[domain]]`; at least one common scoring domain is required",
                                   "add [[domain]] with an `id` and a `description` of what the reviewer rates"))
        self._packages(manifest, case_type)
        if manifest.check:
            self._checks(manifest)

    def _reference_file(self, doc: TomlDocument, key: KeyPath, path: str | None, media: str | None,
                        out: list[Problem]) -> None:
        if path is not None:
            self._path(doc, key + ("path",), path, "file", "reference mockup", out)
        if media is not None:
            self._path(doc, key + ("media",), media, "file", "reference media", out)

    def _packages(self, manifest: Manifest, case_type: str) -> None:
        doc, out = self.doc, self.common
        if manifest.packages and case_type not in ("end-to-end",):
            out.append(doc.problem(("packages",), f"`packages` is end-to-end only; a {case_type} case may not declare it",
                                   "remove `packages`"))
            return
        for i, name in enumerate(manifest.packages):
            if name not in self.config.packages:
                known = ", ".join(sorted(self.config.packages)) or "none (the suite's tcab.toml declares no [packages])"
                out.append(doc.problem(("packages", i), f"{name!r} is not a shippable package of the suite's package store",
                                       f"known packages: {known}"))
        for dup in _duplicates(manifest.packages):
            out.append(doc.problem(("packages",), f"package {dup!r} is declared twice"))

    def _checks(self, manifest: Manifest) -> None:
        doc = self.doc
        for i, check in enumerate(manifest.check):
            uses_call = any(action.type == "call" for action in check.actions)
            if uses_call and manifest.instrumentation is None:
                self.common.append(doc.problem(("check", i, "actions"), "a `call` action needs the case's debug-API handle",
                                               'declare [instrumentation] handle = "__yourgame"'))
        for view, count in Counter(check.view for check in manifest.check).items():
            if count > 1:
                index = [c.view for c in manifest.check].index(view)
                self.common.append(doc.problem(("check", index, "view"), f"view {view!r} is checked {count} times",
                                               "each check records under its own view; give each a distinct `view`"))

    # -- variants ----------------------------------------------------------------------
    def _variant_docs(self, listed: object) -> list[tuple[str, TomlDocument | None]]:
        """Load the variant files the manifest lists: (slug, document) in order."""
        if not isinstance(listed, list) or not listed:
            return [(DEFAULT_VARIANT, None)]
        found: list[tuple[str, TomlDocument | None]] = []
        for i, relative in enumerate(listed):
            if not isinstance(relative, str):
                continue
            target = self._path(self.doc, ("variants", i), relative, "file", "variant file", self.common)
            if target is None:
                continue
            loaded = load(target)
            if isinstance(loaded, Problem):
                self.result.by_variant.setdefault(target.stem, []).append(loaded)
                found.append((target.stem, None))
                continue
            slug = loaded.data.get("slug")
            found.append((slug if isinstance(slug, str) and slug else target.stem, loaded))
        for dup in _duplicates([str(p) for p in listed]):
            self.common.append(self.doc.problem(("variants",), f"variant file {dup!r} is listed twice"))
        return found or [(DEFAULT_VARIANT, None)]

    def _variants(self, manifest: Manifest, docs: list[tuple[str, TomlDocument | None]]
                  ) -> list[tuple[str, tuple[TomlDocument, VariantFile] | None]]:
        variants: list[tuple[str, tuple[TomlDocument, VariantFile] | None]] = []
        for slug, vdoc in docs:
            problems = self.result.by_variant.setdefault(slug, [])
            if vdoc is None:
                variants.append((slug, None))
                continue
            model, shape = validate(VariantFile, vdoc)
            problems.extend(shape)
            if manifest.review is not None and "review_item" in vdoc.data:
                problems.append(vdoc.problem(("review_item",), "uses `[[review_item]]`, but the case is authored in the "
                                             "categories grammar (`[review] format = 2`)",
                                             "add `[[review.categories]]` instead"))
            review = vdoc.data.get("review")
            if manifest.review is None and isinstance(review, dict):
                problems.append(vdoc.problem(("review",), "declares `[review]` categories, but the case uses the legacy "
                                             "`[[review_item]]` grammar", "use `[[review_item]]` in this variant too"))
            variants.append((slug, (vdoc, model) if model is not None else None))
        for dup in _duplicates([slug for slug, _ in docs]):
            self.common.append(self.doc.problem(("variants",), f"two variant files declare slug {dup!r}",
                                                "variant slugs are recorded in runs and must be unique within the case"))
        return variants

    def _variant(self, manifest: Manifest, slug: str,
                 variant: tuple[TomlDocument, VariantFile] | None) -> Variant | None:
        problems = self.result.by_variant.setdefault(slug, [])
        vdoc, own = variant if variant is not None else (None, None)
        if slug != DEFAULT_VARIANT and own is None:
            return None  # its file failed to load or validate; those problems are recorded
        rules = _VariantRules(self, manifest, slug, vdoc, own, problems)
        return rules.resolve()

    # -- errata ------------------------------------------------------------------------
    def _errata(self, variants: list[Variant | None]) -> tuple[Erratum, ...]:
        path = self.folder / "errata.toml"
        if not path.exists():
            return ()
        problems: list[Problem] = []
        self.result.errata = problems
        loaded = load(path)
        if isinstance(loaded, Problem):
            problems.append(loaded)
            return ()
        errata, shape = validate(ErrataFile, loaded)
        problems.extend(shape)
        if errata is None:
            return ()
        slugs = self.result.variant_slugs
        verdicts = {v.slug: _verdict_ids(v) for v in variants if v is not None}
        for dup in _duplicates([e.id for e in errata.erratum]):
            index = [e.id for e in errata.erratum].index(dup, [e.id for e in errata.erratum].index(dup) + 1)
            problems.append(loaded.problem(("erratum", index, "id"), f"erratum id {dup!r} is used twice",
                                           "ids must be unique within errata.toml"))
        for i, erratum in enumerate(errata.erratum):
            if erratum.variant is not None and erratum.variant not in slugs:
                problems.append(loaded.problem(("erratum", i, "variant"), f"variant {erratum.variant!r} is not declared",
                                               f"declared variants: {', '.join(slugs)}"))
            if erratum.review is None:
                continue
            scope = [erratum.variant] if erratum.variant in verdicts else list(verdicts)
            known = set().union(*(verdicts[s] for s in scope)) if scope else set()
            if erratum.review not in known:
                problems.append(loaded.problem(("erratum", i, "review"),
                                               f"{erratum.review!r} is not a verdict id of the case's checklist",
                                               _suggest(erratum.review, known, "verdict ids")))
        return tuple(errata.erratum)

    # -- performance -------------------------------------------------------------------
    def _unreviewed(self) -> TomlDocument:
        """The manifest without the reviewer's tables, each reported as not belonging here.

        The strict model would call them unknown keys; the author deserves the actual reason.
        """
        doc = self.doc
        for key, table in REVIEWED_TABLES.items():
            if key in doc.data:
                self.common.append(doc.problem(
                    (key,), f"a performance case declares no {table}: its answers and its fuel are the whole score",
                    "remove it; what a reader should know about the problem belongs in a spec or the prompt"))
        kept = {key: value for key, value in doc.data.items() if key not in REVIEWED_TABLES}
        return TomlDocument(doc.path, kept, doc.lines)

    def _performance(self, manifest: PerformanceManifest) -> None:
        doc, out = self.doc, self.common
        self._path(doc, ("changelog",), manifest.changelog, "file", "changelog", out)
        self._path(doc, ("prompt",), manifest.prompt, "file", "prompt template", out)
        if manifest.description is not None:
            self._path(doc, ("description",), manifest.description, "file", "description", out)
        seeded: list[Path | None] = []
        if manifest.workspace is not None:
            seeded.append(self._path(doc, ("workspace",), manifest.workspace, "dir", "workspace", out))
        for i, spec in enumerate(manifest.spec):
            seeded.append(self._path(doc, ("spec", i, "source"), spec.source, "file", "spec source", out))
        for key in ("input", "output"):
            seeded.append(self._path(doc, ("contract", key), getattr(manifest.contract, key), "file",
                                     f"contract {key} schema", out))
        out.extend(performance_case_problems(doc, self.folder, manifest.case,
                                             seeded=[path for path in seeded if path is not None]))
        if out:
            return
        workspace = self.folder / manifest.workspace if manifest.workspace is not None else None
        self.result.case = CaseVersion(
            slug=manifest.slug,
            version=self.folder.name,
            case_type="performance",
            folder=self.folder,
            manifest_path=doc.path,
            name=manifest.name,
            prompt=self.folder / manifest.prompt,
            max_runtime_hours=manifest.max_runtime_hours,
            build=Build(install=manifest.build.install, build=manifest.build.build),
            checks=(),
            handle=None,
            assets=(),
            packages=(),
            variants=(Variant(slug=DEFAULT_VARIANT, name=humanize(DEFAULT_VARIANT), description=None,
                              workspace=workspace, reference_implementation=None, specs=tuple(manifest.spec),
                              references=(), proofs=(), checklist=(), domains=()),),
            errata=(),
            performance=Performance(build=manifest.build, contract=manifest.contract, sandbox=manifest.sandbox,
                                    cases=tuple(manifest.case)),
        )


def performance_case_problems(doc: TomlDocument, folder: Path, cases: Sequence[PerfCase], *,
                              seeded: Sequence[Path] = ()) -> list[Problem]:
    """`[[case]]` rules shared by both layouts: files exist and stay held out, ids are unique, a
    stress case exists.

    `seeded` lists what a run receives (the workspace folder, spec sources, contract schemas):
    a case file among them would show the model the very inputs and answers it is judged on.
    """
    problems: list[Problem] = []
    for i, case in enumerate(cases):
        for key, relative, what in (("input", case.input, "case input"), ("expected", case.expected, "expected output")):
            target, found = check_path(doc, folder, ("case", i, key), relative, "file", what)
            problems.extend(found)
            leak = next((path for path in seeded if target is not None and is_inside(path, target)), None)
            if leak is not None:
                problems.append(doc.problem(
                    ("case", i, key), f"{what} {relative!r} is seeded into every run (as part of "
                    f"{leak.relative_to(folder).as_posix()}), so the model would see a held-out case",
                    "keep case files apart from the workspace, the specs and the contract schemas, e.g. under cases/"))
    ids = [case.case_id for case in cases]
    for dup in _duplicates(ids):
        index = ids.index(dup, ids.index(dup) + 1)
        problems.append(doc.problem(("case", index), f"case id {dup!r} is used twice",
                                    "give it an explicit `id`; ids default to the input's file stem"))
    if not any(case.kind == "stress" for case in cases):
        problems.append(doc.problem(("case",), "declares no stress case; fuel is measured on stress cases only",
                                    'add a [[case]] with kind = "stress" (the default)'))
    return problems


class _VariantRules:
    """The rules of one variant's effective set: common material plus the variant's own."""

    def __init__(self, parent: _VersionResolver, manifest: Manifest, slug: str,
                 vdoc: TomlDocument | None, own: VariantFile | None, problems: list[Problem]) -> None:
        self.parent = parent
        self.doc = parent.doc
        self.manifest = manifest
        self.slug = slug
        self.vdoc = vdoc
        self.own = own
        self.problems = problems

    def _vproblem(self, key: KeyPath, message: str, hint: str | None = None) -> None:
        assert self.vdoc is not None
        self.problems.append(self.vdoc.problem(key, message, hint))

    def resolve(self) -> Variant:
        manifest, own, vdoc = self.manifest, self.own, self.vdoc
        workspace: Path | None = None
        reference_impl: Path | None = None
        if own is not None and vdoc is not None:
            if own.workspace is not None:
                workspace = self.parent._path(vdoc, ("workspace",), own.workspace, "dir", "workspace", self.problems)
            if own.reference_implementation is not None:
                reference_impl = self.parent._path(vdoc, ("reference_implementation",), own.reference_implementation,
                                                   "dir", "reference implementation", self.problems)
            for i, spec in enumerate(own.spec):
                self.parent._path(vdoc, ("spec", i, "source"), spec.source, "file", "spec source", self.problems)
            for i, ref in enumerate(own.reference):
                self.parent._reference_file(vdoc, ("reference", i), ref.path, ref.media, self.problems)
        if workspace is None and (own is None or own.workspace is None) and manifest.workspace is not None:
            workspace = self.parent.folder / manifest.workspace
        domains = self._domains()
        references = self._references()
        proofs = self._proofs()
        checklist = self._checklist({d.id for d in domains}, {r.view for r in references}, {p.id for p in proofs})
        self._check_references(references)
        self._seeded_collisions(proofs, workspace)
        self._package_json(workspace)
        return Variant(
            slug=self.slug,
            name=own.display_name if own else humanize(self.slug),
            description=own.description if own else None,
            workspace=workspace,
            reference_implementation=reference_impl,
            specs=tuple(manifest.spec) + tuple(own.spec if own else ()),
            references=tuple(references),
            proofs=tuple(proofs),
            checklist=tuple(checklist),
            domains=tuple(domains),
        )

    # Each rule below reads the common declarations from the manifest and the variant's own
    # from its file, so a problem points at whichever file holds the offending line.
    def _domains(self) -> list[Domain]:
        common, own = self.manifest.domain, list(self.own.domain) if self.own else []
        seen = {d.id for d in common}
        for dup in _duplicates([d.id for d in common]):
            index = _second([d.id for d in common], dup)
            if self.slug == self.parent.result.variant_slugs[0]:  # report a common clash once
                self.parent.common.append(self.doc.problem(("domain", index, "id"), f"domain id {dup!r} is declared twice"))
        for i, domain in enumerate(own):
            if domain.id in seen:
                self._vproblem(("domain", i, "id"), f"domain id {domain.id!r} is already declared",
                               "domain ids must be unique across the common domains and this variant's own")
            seen.add(domain.id)
        return list(common) + own

    def _references(self) -> list[Reference]:
        common, own = self.manifest.reference, list(self.own.reference) if self.own else []
        common_views = [r.view for r in common]
        if self.slug == self.parent.result.variant_slugs[0]:
            for dup in _duplicates(common_views):
                self.parent.common.append(self.doc.problem(("reference", _second(common_views, dup), "view"),
                                                           f"view {dup!r} is declared twice"))
        own_views: list[str] = []
        for i, ref in enumerate(own):
            if ref.view in common_views:
                self._vproblem(("reference", i, "view"), f"view {ref.view!r} is already a common reference",
                               "a view is either common or declared per variant, not both")
            elif ref.view in own_views:
                self._vproblem(("reference", i, "view"), f"view {ref.view!r} is declared twice in this variant")
            own_views.append(ref.view)
        return list(common) + own

    def _proofs(self) -> list[Proof]:
        common, own = self.manifest.proof, list(self.own.proof) if self.own else []
        ids: set[str] = set()
        dests: set[str] = set()
        for scope, proofs in (("common", common), ("own", own)):
            for i, proof in enumerate(proofs):
                doc = self.doc if scope == "common" else self.vdoc
                assert doc is not None
                if scope == "common" and self.slug != self.parent.result.variant_slugs[0]:
                    ids.add(proof.id)
                    dests.add(_norm(proof.dest))
                    continue  # common clashes are reported once, with the first variant
                into = self.parent.common if scope == "common" else self.problems
                if proof.id in ids:
                    into.append(doc.problem(("proof", i, "id"), f"proof id {proof.id!r} is already declared",
                                            "proof ids must be unique within a variant's effective set"))
                if _norm(proof.dest) in dests:
                    into.append(doc.problem(("proof", i, "dest"), f"proof dest {proof.dest!r} is already requested by another proof"))
                ids.add(proof.id)
                dests.add(_norm(proof.dest))
        return list(common) + own

    def _check_references(self, references: list[Reference]) -> None:
        by_view = {r.view: r for r in references}
        for i, check in enumerate(self.manifest.check):
            ref = by_view.get(check.baseline_view)
            key = ("check", i, "reference" if check.reference is not None else "view")
            if ref is None:
                self.problems.append(self.doc.problem(
                    key, f"check {check.view!r} names reference view {check.baseline_view!r}, which variant "
                    f"{self.slug!r} does not resolve",
                    "name a common [[reference]] view, or one that every variant declares"))
            elif ref.kind == "video":
                self.problems.append(self.doc.problem(
                    key, f"check {check.view!r} uses reference {ref.view!r}, a video; a video can't be a baseline",
                    "point the check at an HTML mockup or a still image"))

    def _seeded_collisions(self, proofs: list[Proof], workspace: Path | None) -> None:
        """Seeded destinations must be distinct, and no proof may overwrite a seeded file."""
        seeded: dict[str, tuple[TomlDocument, KeyPath]] = {}
        sources: list[tuple[TomlDocument, KeyPath, str]] = []
        for i, spec in enumerate(self.manifest.spec):
            sources.append((self.doc, ("spec", i, "dest" if spec.dest else "source"), spec.seeded_dest))
        for i, ref in enumerate(self.manifest.reference):
            if ref.media is not None:
                sources.append((self.doc, ("reference", i, "media"), ref.media))
        for i, asset in enumerate(self.manifest.assets):
            sources.append((self.doc, ("assets", i), asset))
        if self.own is not None and self.vdoc is not None:
            for i, spec in enumerate(self.own.spec):
                sources.append((self.vdoc, ("spec", i, "dest" if spec.dest else "source"), spec.seeded_dest))
            for i, ref in enumerate(self.own.reference):
                if ref.media is not None:
                    sources.append((self.vdoc, ("reference", i, "media"), ref.media))
        for doc, key, dest in sources:
            norm = _norm(dest)
            if norm in seeded:
                first = format_where(*seeded[norm])
                self.problems.append(doc.problem(key, f"seeds {dest!r}, which {first} already seeds",
                                                 "give one of them an explicit, distinct `dest`"))
            else:
                seeded[norm] = (doc, key)
        for i, proof in enumerate(proofs):
            norm = _norm(proof.dest)
            common = i < len(self.manifest.proof)
            doc = self.doc if common else self.vdoc
            key = ("proof", i if common else i - len(self.manifest.proof), "dest")
            assert doc is not None
            collides = norm in seeded or (workspace is not None and (workspace / norm).is_file())
            if collides:
                self.problems.append(doc.problem(key, f"proof dest {proof.dest!r} collides with a file seeded into "
                                                 f"the run of variant {self.slug!r}", "write proofs to a path nothing is seeded to, e.g. proof/<id>.png"))

    def _package_json(self, workspace: Path | None) -> None:
        """Each declared package must be a `file:./.tcab/packages/<name>` dependency of the workspace."""
        packages = self.manifest.packages
        if not packages or self.parent.case_type != "end-to-end":
            return  # `packages` outside end-to-end is already a problem of its own
        where = ("workspace",)
        doc = self.vdoc if self.own is not None and self.own.workspace is not None else self.doc
        assert doc is not None
        if workspace is None:
            self.problems.append(doc.problem(("packages",), "declares packages but no workspace ships a package.json",
                                             "add `workspace` with a package.json depending on each package"))
            return
        package_json = workspace / "package.json"
        try:
            data = json.loads(package_json.read_text(encoding="utf-8"))
            deps = {**data.get("devDependencies", {}), **data.get("dependencies", {})}
        except (OSError, ValueError, AttributeError, TypeError):
            self.problems.append(doc.problem(where, f"declares packages, but {workspace.name}/package.json is missing "
                                             "or not a JSON object with dependencies",
                                             "ship a package.json whose dependencies name each declared package"))
            return
        for name in packages:
            expected = f"file:./.tcab/packages/{name}"
            actual = deps.get(name)
            if actual is None:
                self.problems.append(doc.problem(where, f"{workspace.name}/package.json does not depend on package {name!r}",
                                                 f'add "{name}": "{expected}" to its dependencies'))
            elif actual != expected:
                self.problems.append(doc.problem(where, f"{workspace.name}/package.json points {name!r} at {actual!r}",
                                                 f'it must be the in-repo path "{expected}"'))

    # -- the checklist -----------------------------------------------------------------
    def _checklist(self, domains: set[str], views: set[str], proofs: set[str]) -> list[ChecklistItem]:
        if self.manifest.review is not None:
            items = self._categories(views, proofs)
        else:
            items = self._legacy(domains, views, proofs)
        self._validation_rules(items)
        return [item for item, _ in items]

    def _legacy(self, domains: set[str], views: set[str], proofs: set[str]
                ) -> list[tuple[ChecklistItem, list[tuple[_Located, Validation]]]]:
        common_domains = {d.id for d in self.manifest.domain}
        out: list[tuple[ChecklistItem, list[tuple[_Located, Validation]]]] = []
        verdict_ids: dict[str, _Located] = {}
        scopes: list[tuple[TomlDocument, list[ReviewItem], bool]] = [(self.doc, self.manifest.review_item, True)]
        if self.own is not None and self.vdoc is not None:
            scopes.append((self.vdoc, self.own.review_item, False))
        for doc, items, common in scopes:
            for i, item in enumerate(items):
                key: KeyPath = ("review_item", i)
                into = self.problems
                allowed = common_domains if common else domains
                if item.domain is not None and item.domain not in allowed:
                    hint = ("a common item may name only a common domain" if common and item.domain in domains
                            else _suggest(item.domain, allowed, "domains"))
                    into.append(doc.problem(key + ("domain",), f"domain {item.domain!r} is not declared for variant {self.slug!r}", hint))
                self._media_links(doc, key, item.reference, item.proof, views, proofs)
                units: list[VerdictUnit] = []
                drivers: list[tuple[_Located, Validation]] = []
                subs = item.subs
                sub_key = "sub_items" if item.sub_items is not None else "sub_item"
                if subs and item.validation is not None:
                    into.append(doc.problem(key + ("validation",), "an item with sub-items is verdicted per sub-item, "
                                            "so it cannot carry item-level `validation`",
                                            "move `validation` onto each sub-item"))
                if subs:
                    for dup in _duplicates([s.id for s in subs]):
                        into.append(doc.problem(key + (sub_key, _second([s.id for s in subs], dup), "id"),
                                                f"sub-item id {dup!r} is used twice in item {item.id!r}"))
                    for j, sub in enumerate(subs):
                        unit = VerdictUnit(f"{item.id}.{sub.id}", sub.title, item.weight / len(subs), sub.validation)
                        self._claim(verdict_ids, unit.id, _Located(doc, key + (sub_key, j, "id")))
                        units.append(unit)
                        if sub.validation is not None:
                            drivers.append((_Located(doc, key + (sub_key, j, "validation")), sub.validation))
                else:
                    units.append(VerdictUnit(item.id, item.title, item.weight, item.validation))
                    if item.validation is not None:
                        drivers.append((_Located(doc, key + ("validation",)), item.validation))
                self._claim(verdict_ids, item.id, _Located(doc, key + ("id",)))
                out.append((ChecklistItem(item.id, item.title, item.domain, tuple(units)), drivers))
        return out

    def _claim(self, taken: dict[str, _Located], verdict_id: str, where: _Located) -> None:
        if verdict_id in taken:
            first = taken[verdict_id]
            self.problems.append(where.doc.problem(where.key, f"id {verdict_id!r} is already used by "
                                                   f"{format_where(first.doc, first.key)}",
                                                   "item and verdict ids must be unique within a variant's "
                                                   "effective set (common plus its own)"))
        else:
            taken[verdict_id] = where

    def _categories(self, views: set[str], proofs: set[str]
                    ) -> list[tuple[ChecklistItem, list[tuple[_Located, Validation]]]]:
        assert self.manifest.review is not None
        merged: dict[str, tuple[str, list[tuple[TomlDocument, KeyPath, CategoryItem]]]] = {}
        scopes: list[tuple[TomlDocument, list[Category]]] = [(self.doc, self.manifest.review.categories)]
        if self.own is not None and self.vdoc is not None and self.own.review is not None:
            scopes.append((self.vdoc, self.own.review.categories))
        for s, (doc, categories) in enumerate(scopes):
            ids_here = [c.id for c in categories]
            for dup in _duplicates(ids_here):
                self.problems.append(doc.problem(("review", "categories", _second(ids_here, dup), "id"),
                                                 f"category id {dup!r} is declared twice in this file",
                                                 "a variant may extend a common category by reusing its id; "
                                                 "within one file each category is declared once"))
            for i, category in enumerate(categories):
                title, entries = merged.setdefault(category.id, (category.title, []))
                for j, item in enumerate(category.items):
                    entries.append((doc, ("review", "categories", i, "items", j), item))
        out: list[tuple[ChecklistItem, list[tuple[_Located, Validation]]]] = []
        for cat_id, (title, entries) in merged.items():
            seen: dict[str, _Located] = {}
            units: list[VerdictUnit] = []
            drivers: list[tuple[_Located, Validation]] = []
            for doc, key, item in entries:
                if item.id in seen:
                    first = seen[item.id]
                    self.problems.append(doc.problem(key + ("id",), f"item id {item.id!r} is already used in category "
                                                     f"{cat_id!r} by {format_where(first.doc, first.key)}",
                                                     "item ids must be unique within their category"))
                seen.setdefault(item.id, _Located(doc, key + ("id",)))
                self._media_links(doc, key, item.reference, item.proof, views, proofs)
                units.append(VerdictUnit(f"{cat_id}.{item.id}", item.title, item.weight, item.validation))
                if item.validation is not None:
                    drivers.append((_Located(doc, key + ("validation",)), item.validation))
            out.append((ChecklistItem(cat_id, title, None, tuple(units)), drivers))
        return out

    def _media_links(self, doc: TomlDocument, key: KeyPath, reference: str | None, proof: str | None,
                     views: set[str], proofs: set[str]) -> None:
        if reference is not None and reference not in views:
            self.problems.append(doc.problem(key + ("reference",), f"reference view {reference!r} does not resolve for "
                                             f"variant {self.slug!r}", _suggest(reference, views, "views")))
        if proof is not None and proof not in proofs:
            self.problems.append(doc.problem(key + ("proof",), f"proof {proof!r} does not resolve for variant "
                                             f"{self.slug!r}", _suggest(proof, proofs, "proofs")))

    def _validation_rules(self, items: list[tuple[ChecklistItem, list[tuple[_Located, Validation]]]]) -> None:
        drivers = [driver for _, found in items for driver in found]
        if drivers and self.manifest.instrumentation is None:
            where = drivers[0][0]
            self.problems.append(where.doc.problem(where.key, "declares a validation script, but the case names no "
                                                   "debug-API handle",
                                                   'add [instrumentation] handle = "__yourgame" to test-case.toml'))
        scripts: dict[str, _Located] = {}
        for where, validation in drivers:
            self.parent._path(where.doc, where.key + ("script",), validation.script, "file", "validation script",
                              self.problems)
            outputs = [o.id for o in validation.outputs]
            for dup in _duplicates(outputs):
                self.problems.append(where.doc.problem(where.key + ("outputs", _second(outputs, dup), "id"),
                                                       f"output id {dup!r} is declared twice in this script's outputs"))
            videos = [i for i, o in enumerate(validation.outputs) if o.kind == "video"]
            if len(videos) > 1:
                self.problems.append(where.doc.problem(where.key + ("outputs", videos[1], "kind"),
                                                       f"declares {len(videos)} video outputs; a script may record at "
                                                       "most one video (the clip of the whole drive)"))
            if self.manifest.review is not None:
                norm = _norm(validation.script)
                if norm in scripts:
                    first = scripts[norm]
                    self.problems.append(where.doc.problem(where.key + ("script",),
                                                           f"script {validation.script!r} already drives "
                                                           f"{format_where(first.doc, first.key)}",
                                                           "in the categories grammar a script may drive at most one item"))
                scripts.setdefault(norm, where)


def _verdict_ids(variant: Variant) -> set[str]:
    """Ids an erratum's `review` may name: item (or category) ids and unit verdict ids."""
    ids = {item.id for item in variant.checklist}
    ids.update(unit.id for unit in variant.units())
    return ids


def format_where(doc: TomlDocument, key: KeyPath) -> str:
    """How a problem names the other declaration it clashes with: key path, file and line."""
    line = doc.line_of(key)
    return f"`{format_key_path(key)}` ({doc.path.name}{f':{line}' if line else ''})"


def _duplicates(values: Iterable[str]) -> Iterator[str]:
    counts = Counter(values)
    return (value for value, count in counts.items() if count > 1)


def _second(values: list[str], value: str) -> int:
    """The index of the second occurrence: the one to point at as the duplicate."""
    return values.index(value, values.index(value) + 1)


def _norm(path: str) -> str:
    return "/".join(part for part in path.replace("\\", "/").split("/") if part not in ("", "."))


def _suggest(value: str, known: Iterable[str], what: str) -> str:
    names = sorted(known)
    close = difflib.get_close_matches(value, names, n=1)
    if close:
        return f"did you mean {close[0]!r}?"
    return f"known {what}: {', '.join(names)}" if names else f"no {what} are declared"
