"""Resolve a catalog case version (`spec/manifests.md`): every rule, every problem, located.

Resolution reads the manifest, its variant files and its errata, then checks the rules in
the order the spec states them. Nothing stops at the first problem: each rule appends to
the problems of the scope it belongs to (the common manifest, one variant, the errata), and
a `CaseVersion` is built only when none was found.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from pathlib import PurePosixPath
from typing import TypeVar

from pytest_tcab.case import Adversarial
from pytest_tcab.case import CaseVersion
from pytest_tcab.case import Performance
from pytest_tcab.case import Variant
from pytest_tcab.errors import KeyPath
from pytest_tcab.errors import Problem
from pytest_tcab.models.errata import ErrataFile
from pytest_tcab.models.errata import Erratum
from pytest_tcab.models.fields import is_version
from pytest_tcab.models.manifest import ROOT_KEYS
from pytest_tcab.models.manifest import AdversarialManifest
from pytest_tcab.models.manifest import Build
from pytest_tcab.models.manifest import Manifest
from pytest_tcab.models.manifest import PerformanceManifest
from pytest_tcab.models.manifest import VariantFile
from pytest_tcab.models.manifest import WasmVariantFile
from pytest_tcab.models.manifest import humanize
from pytest_tcab.models.performance import PerfCase
from pytest_tcab.models.suite import SuiteConfig
from pytest_tcab.models.validate import validate_partial
from pytest_tcab.paths import is_inside
from pytest_tcab.resolve.adversarial import adversarial_case
from pytest_tcab.resolve.adversarial import adversarial_problems
from pytest_tcab.resolve.common import duplicates
from pytest_tcab.resolve.common import indefinite
from pytest_tcab.resolve.common import suggest
from pytest_tcab.resolve.paths import check_path
from pytest_tcab.resolve.paths import dest_problems
from pytest_tcab.resolve.scope import VersionScope
from pytest_tcab.resolve.variant import VariantRules
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
WasmManifest = TypeVar("WasmManifest", PerformanceManifest, AdversarialManifest)
ERRATA_FILE = "errata.toml"
"""The slug of the single implicit variant of a case that declares no `variants`."""
_NPM_INSTALL = re.compile(r"\bnpm\s+(?:install|i)\b")
"""`npm install` (or `npm i`) anywhere in an init command."""
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
    """The case as far as it resolves: whole when `clean`, else without what failed. Author mode
    renders its templates and plans its seeding either way; run mode takes a clean case only."""

    @property
    def clean(self) -> bool:
        """No problem anywhere in the version: the case is what its files say."""
        return self.case is not None and not (self.common or any(self.by_variant.values()) or self.errata)

    def problems_for(self, variant: str) -> list[Problem]:
        """The problems `resolve[<variant>]` reports: a problem of the whole version is reported
        once, under the first (default) variant, and each variant's own under it."""
        first = self.variant_slugs[:1] == [variant]
        return (self.common if first else []) + self.by_variant.get(variant, [])

    @property
    def problems(self) -> list[Problem]:
        """Every problem of the version once: what a lookup that needs a clean case reports."""
        found = self.common + [p for slug in self.variant_slugs for p in self.by_variant.get(slug, [])]
        return list(dict.fromkeys(found + (self.errata or [])))


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
    VersionResolver(loaded, config, package_root, result).run()
    return result


class VersionResolver(VersionScope):
    """Resolves one catalog case version into `Resolution`; variants are resolved by `VariantRules`."""

    def __init__(
        self, doc: TomlDocument, config: SuiteConfig, package_root: Path, result: Resolution
    ) -> None:
        super().__init__(doc, result.common, result.variant_slugs)
        self.config = config
        self.package_root = package_root
        self.result = result

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
            perf = self._wasm_manifest(PerformanceManifest)
            if perf is not None:
                self._performance(*perf)
            return
        if case_type == "adversarial":
            adversarial = self._wasm_manifest(AdversarialManifest)
            if adversarial is not None:
                self._adversarial(*adversarial)
            return
        partial = validate_partial(Manifest, doc, root_keys=ROOT_KEYS, lenient=True)
        self.common.extend(partial.problems)
        self.dropped.update(partial.dropped)
        self.missing = partial.missing
        manifest = partial.model
        self._review_grammar_exclusive()
        variant_docs = self._variant_docs(doc.data.get("variants"))
        if manifest is None:
            self.variant_slugs[:] = [slug for slug, _ in variant_docs] or [DEFAULT_VARIANT]
            return
        variants = self._variants(manifest, variant_docs)
        self.variant_slugs[:] = [slug for slug, _ in variants]
        self._common_rules(manifest, case_type or "end-to-end")
        resolved = [self._variant(manifest, slug, variant) for slug, variant in variants]
        errata = self._errata(resolved)
        self._report_once()
        if self.missing:
            return  # a required key failed: its rules are skipped and there is no case to render
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
            tick_hz=manifest.instrumentation.tick_hz if manifest.instrumentation else None,
            common_domains=tuple(domain.id for domain in manifest.domain),
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

    def _review_grammar_exclusive(self) -> None:
        if "review" in self.doc.data and "review_item" in self.doc.data:
            self.common.append(
                self.doc.problem(("review",), "declares both a `[review]` table (categories grammar) and "
                                 "`[[review_item]]` entries (legacy grammar)",
                                 "the two grammars are mutually exclusive; keep one")
            )

    def _common_rules(self, manifest: Manifest, case_type: str) -> None:
        doc, out = self.doc, self.common
        for key, what in (("changelog", "changelog"), ("prompt", "prompt template")):
            if key not in self.missing:
                self.path(doc, (key,), getattr(manifest, key), "file", what, out)
        if manifest.description is not None:
            self.path(doc, ("description",), manifest.description, "file", "description", out)
        if manifest.workspace is not None:
            self.path(doc, ("workspace",), manifest.workspace, "dir", "workspace", out)
        for i, asset in enumerate(manifest.assets):
            self.path(doc, ("assets", i), asset, "any", "asset", out)
        for i, spec in enumerate(manifest.spec):
            self.path(doc, ("spec", i, "source"), spec.source, "file", "spec source", out)
        for i, ref in enumerate(manifest.reference):
            self.reference_file(doc, ("reference", i), ref.path, ref.media, out)
        if not manifest.domain:
            out.append(doc.problem(("domain",), "declares no `[[domain]]`; at least one common scoring domain is required",
                                   "add [[domain]] with an `id` and a `description` of what the reviewer rates"))
        self._packages(manifest, case_type)
        self._output(manifest, case_type)
        if manifest.check:
            self._checks(manifest)

    def _packages(self, manifest: Manifest, case_type: str) -> None:
        doc, out = self.doc, self.common
        if manifest.packages and case_type not in ("end-to-end",):
            out.append(doc.problem(("packages",), f"`packages` is end-to-end only; {indefinite(case_type)} case may not declare it",
                                   "remove `packages`"))
            return
        if manifest.packages and (manifest.init is None or _NPM_INSTALL.search(manifest.init) is None):
            message = ("declares `packages` but no `init`; a case that declares `packages` must run `npm install` "
                       "in its `init`" if manifest.init is None else
                       f"init = {manifest.init!r} does not run `npm install`, which a case that declares "
                       "`packages` must")
            out.append(doc.problem(("init",) if manifest.init is not None else ("packages",), message,
                                   'the case ships no lockfile, so `npm ci` cannot install the vendored packages: '
                                   'write init = "npm install"'))
        for i, name in enumerate(manifest.packages):
            if name not in self.config.packages:
                known = ", ".join(sorted(self.config.packages)) or "none (the suite's tcab.toml declares no [packages])"
                out.append(doc.problem(("packages", i), f"{name!r} is not a shippable package of the suite's package store",
                                       f"known packages: {known}"))
        for dup in duplicates(manifest.packages):
            out.append(doc.problem(("packages",), f"package {dup!r} is declared twice"))

    def _output(self, manifest: Manifest, case_type: str) -> None:
        """`[output]` names where a Blender case's model writes its script, inside the run."""
        if manifest.output is None:
            return
        if case_type != "blender":
            self.common.append(self.doc.problem(("output",), f"`[output]` is the table of Blender cases; "
                                                f"{indefinite(case_type)} case may not declare it", "remove `[output]`"))
            return
        self.common.extend(dest_problems(self.doc, ("output", "actions"), manifest.output.actions, "the run root"))

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
            target = self.path(self.doc, ("variants", i), relative, "file", "variant file", self.common)
            if target is None:
                self.unresolved_variants.add(PurePosixPath(relative).stem)
                continue
            loaded = load(target)
            if isinstance(loaded, Problem):
                self.result.by_variant.setdefault(target.stem, []).append(loaded)
                self.unresolved_variants.add(target.stem)
                found.append((target.stem, None))
                continue
            slug = loaded.data.get("slug")
            found.append((slug if isinstance(slug, str) and slug else target.stem, loaded))
        for dup in duplicates([str(p) for p in listed]):
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
            partial = validate_partial(VariantFile, vdoc)
            problems.extend(partial.problems)
            self.dropped.update(partial.dropped)
            model = partial.model
            if model is None:
                self.unresolved_variants.add(slug)
            if manifest.review is not None and "review_item" in vdoc.data:
                problems.append(vdoc.problem(("review_item",), "uses `[[review_item]]`, but the case is authored in the "
                                             "categories grammar (`[review] format = 2`)",
                                             "add `[[review.categories]]` instead"))
            review = vdoc.data.get("review")
            if manifest.review is None and isinstance(review, dict):
                problems.append(vdoc.problem(("review",), "declares `[review]` categories, but the case uses the legacy "
                                             "`[[review_item]]` grammar", "use `[[review_item]]` in this variant too"))
            variants.append((slug, (vdoc, model) if model is not None else None))
        for dup in duplicates([slug for slug, _ in docs]):
            self.common.append(self.doc.problem(("variants",), f"two variant files declare slug {dup!r}",
                                                "variant slugs are recorded in runs and must be unique within the case"))
        return variants

    def _variant(self, manifest: Manifest, slug: str,
                 variant: tuple[TomlDocument, VariantFile] | None) -> Variant | None:
        problems = self.result.by_variant.setdefault(slug, [])
        vdoc, own = variant if variant is not None else (None, None)
        if slug != DEFAULT_VARIANT and own is None:
            return None  # its file failed to load or validate; those problems are recorded
        rules = VariantRules(self, manifest, slug, vdoc, own, problems)
        return rules.resolve()

    def _report_once(self) -> None:
        """A problem every variant found at the same place is the version's, reported once.

        A common declaration broken for all variants alike (a check naming a missing view, a
        common item's misspelt reference) would otherwise repeat under every `resolve[...]` item.
        """
        slugs = self.result.variant_slugs
        if len(slugs) < 2:
            return
        lists = [self.result.by_variant.get(slug, []) for slug in slugs]

        def place(problem: Problem, slug: str) -> tuple[Path, int | None, KeyPath, str, str | None]:
            return problem.path, problem.line, problem.key, problem.message.replace(f"variant {slug!r}", "any variant"), \
                problem.hint
        shared = set.intersection(*({place(p, slug) for p in found} for slug, found in zip(slugs, lists)))
        if not shared:
            return
        for slug, found in zip(slugs, lists):
            found[:] = [p for p in found if place(p, slug) not in shared]
        for path, line, key, message, hint in sorted(shared, key=lambda found: (str(found[0]), found[1] or 0, found[3])):
            self.common.append(Problem(path, line, key, message, hint))

    # -- errata ------------------------------------------------------------------------
    def _errata(self, variants: list[Variant | None]) -> tuple[Erratum, ...]:
        path = self.folder / ERRATA_FILE
        if not path.exists():
            return ()
        problems: list[Problem] = []
        self.result.errata = problems
        loaded = load(path)
        if isinstance(loaded, Problem):
            problems.append(loaded)
            return ()
        partial = validate_partial(ErrataFile, loaded)
        problems.extend(partial.problems)
        errata = partial.model
        if errata is None:
            return ()
        slugs = self.result.variant_slugs
        verdicts = {v.slug: _verdict_ids(v) for v in variants if v is not None}
        for dup in duplicates([e.id for e in errata.erratum]):
            index = [e.id for e in errata.erratum].index(dup, [e.id for e in errata.erratum].index(dup) + 1)
            problems.append(loaded.problem(("erratum", index, "id"), f"erratum id {dup!r} is used twice",
                                           "ids must be unique within errata.toml"))
        for i, erratum in enumerate(errata.erratum):
            if erratum.variant in self.unresolved_variants:
                continue  # its variant file's own problem is the one to fix
            if erratum.variant is not None and erratum.variant not in slugs:
                problems.append(loaded.problem(("erratum", i, "variant"), f"variant {erratum.variant!r} is not declared",
                                               f"declared variants: {', '.join(slugs)}"))
            if erratum.review is None or erratum.review.split(".")[0] in self.dropped or erratum.review in self.dropped:
                continue
            scope = [erratum.variant] if erratum.variant in verdicts else list(verdicts)
            known = set().union(*(verdicts[s] for s in scope)) if scope else set()
            if erratum.review not in known:
                problems.append(loaded.problem(("erratum", i, "review"),
                                               f"{erratum.review!r} is not a verdict id of the case's checklist",
                                               suggest(erratum.review, known, "verdict ids")))
        return tuple(errata.erratum)

    # -- performance -------------------------------------------------------------------
    def _unreviewed(self) -> TomlDocument:
        """The manifest without the reviewer's tables, each reported as not belonging here.

        The strict model would call them unknown keys; the author deserves the actual reason.
        """
        doc = self.doc
        for key, table in REVIEWED_TABLES.items():
            if key in doc.data:
                score = "its answers and its fuel are" if self.case_type == "performance" else "its standings are"
                self.common.append(doc.problem(
                    (key,), f"{indefinite(self.case_type)} case declares no {table}: {score} the whole score",
                    "remove it; what a reader should know about the problem belongs in a spec or the prompt"))
        kept = {key: value for key, value in doc.data.items() if key not in REVIEWED_TABLES}
        return TomlDocument(doc.path, kept, doc.source)

    def _wasm_manifest(self, model: type[WasmManifest]
                       ) -> tuple[WasmManifest, list[tuple[str, WasmVariantFile | None]]] | None:
        """A performance or adversarial manifest and its variant files, each checked; None when
        the manifest does not validate (its problems are recorded)."""
        partial = validate_partial(model, self._unreviewed(), root_keys=ROOT_KEYS)
        self.common.extend(partial.problems)
        docs = self._variant_docs(self.doc.data.get("variants"))
        self.variant_slugs[:] = [slug for slug, _ in docs]
        return (partial.model, self._wasm_variants(docs)) if partial.model is not None else None

    def _wasm_variants(self, docs: list[tuple[str, TomlDocument | None]]
                       ) -> list[tuple[str, WasmVariantFile | None]]:
        """Each variant file of a performance or adversarial case: a name and additive specs, checked like a game's."""
        variants: list[tuple[str, WasmVariantFile | None]] = []
        for slug, vdoc in docs:
            problems = self.result.by_variant.setdefault(slug, [])
            if vdoc is None:
                variants.append((slug, None))
                continue
            partial = validate_partial(WasmVariantFile, vdoc)
            problems.extend(partial.problems)
            model = partial.model
            for i, spec in enumerate(model.spec if model is not None else ()):
                self.path(vdoc, ("spec", i, "source"), spec.source, "file", "spec source", problems)
            variants.append((slug, model))
        for dup in duplicates([slug for slug, _ in docs]):
            self.common.append(self.doc.problem(("variants",), f"two variant files declare slug {dup!r}",
                                                "variant slugs are recorded in runs and must be unique within the case"))
        return variants

    def _wasm_material(self, manifest: PerformanceManifest | AdversarialManifest,
                       schemas: tuple[str, ...]) -> list[Path]:
        """Path rules of what a wasm case seeds: changelog, prompt, workspace, specs; the seeded paths."""
        doc, out = self.doc, self.common
        self.path(doc, ("changelog",), manifest.changelog, "file", "changelog", out)
        self.path(doc, ("prompt",), manifest.prompt, "file", "prompt template", out)
        if manifest.description is not None:
            self.path(doc, ("description",), manifest.description, "file", "description", out)
        seeded: list[Path | None] = []
        if manifest.workspace is not None:
            seeded.append(self.path(doc, ("workspace",), manifest.workspace, "dir", "workspace", out))
        for i, spec in enumerate(manifest.spec):
            seeded.append(self.path(doc, ("spec", i, "source"), spec.source, "file", "spec source", out))
        seeded.extend(self.folder / relative for relative in schemas)
        return [path for path in seeded if path is not None]

    def _wasm_case(self, manifest: PerformanceManifest | AdversarialManifest,
                   variants: list[tuple[str, WasmVariantFile | None]], *,
                   performance: Performance | None = None, adversarial: Adversarial | None = None) -> CaseVersion:
        """The case version of a performance or adversarial manifest: its variants, no checklist."""
        workspace = self.folder / manifest.workspace if manifest.workspace is not None else None
        resolved = tuple(
            Variant(slug=slug, name=own.display_name if own else humanize(slug),
                    description=own.description if own else None, workspace=workspace,
                    reference_implementation=None, specs=tuple(manifest.spec) + tuple(own.spec if own else ()),
                    references=(), proofs=(), checklist=(), domains=())
            for slug, own in variants
        )
        return CaseVersion(
            slug=manifest.slug,
            version=self.folder.name,
            case_type=manifest.type,
            folder=self.folder,
            manifest_path=self.doc.path,
            name=manifest.name,
            prompt=self.folder / manifest.prompt,
            max_runtime_hours=manifest.max_runtime_hours,
            build=Build(install=manifest.build.install, build=manifest.build.build),
            checks=(),
            handle=None,
            assets=(),
            packages=(),
            variants=resolved,
            errata=(),
            performance=performance,
            adversarial=adversarial,
        )

    def _performance(self, manifest: PerformanceManifest,
                     variants: list[tuple[str, WasmVariantFile | None]]) -> None:
        seeded = self._wasm_material(manifest, ())
        for key in ("input", "output"):
            found = self.path(self.doc, ("contract", key), getattr(manifest.contract, key), "file",
                              f"contract {key} schema", self.common)
            seeded.extend([found] if found is not None else [])
        self.common.extend(performance_case_problems(self.doc, self.folder, manifest.case, seeded=seeded))
        self.result.case = self._wasm_case(manifest, variants, performance=Performance(
            build=manifest.build, contract=manifest.contract, sandbox=manifest.sandbox, cases=tuple(manifest.case)))

    def _adversarial(self, manifest: AdversarialManifest,
                     variants: list[tuple[str, WasmVariantFile | None]]) -> None:
        seeded = self._wasm_material(manifest, (manifest.contract.world, manifest.contract.action))
        self.common.extend(adversarial_problems(self.doc, self.folder, manifest, seeded=seeded))
        self.result.case = self._wasm_case(manifest, variants, adversarial=adversarial_case(self.folder, manifest))

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
    for dup in duplicates(ids):
        index = ids.index(dup, ids.index(dup) + 1)
        problems.append(doc.problem(("case", index), f"case id {dup!r} is used twice",
                                    "give it an explicit `id`; ids default to the input's file stem"))
    if not any(case.kind == "stress" for case in cases):
        problems.append(doc.problem(("case",), "declares no stress case; fuel is measured on stress cases only",
                                    'add a [[case]] with kind = "stress" (the default)'))
    return problems


def _verdict_ids(variant: Variant) -> set[str]:
    """Ids an erratum's `review` may name: item (or category) ids and unit verdict ids."""
    ids = {item.id for item in variant.checklist}
    ids.update(unit.id for unit in variant.units())
    return ids
