"""The rules of one variant's effective set (`spec/manifests.md`): common material plus its own.

References, proofs, checks, seeded destinations, packages, domains and the checklist in
either grammar, each problem pointed at whichever file (manifest or variant) declares it.
"""

from __future__ import annotations

import json
from pathlib import Path

from pytest_tcab.case import ChecklistItem
from pytest_tcab.case import Variant
from pytest_tcab.case import VerdictUnit
from pytest_tcab.errors import KeyPath
from pytest_tcab.errors import Problem
from pytest_tcab.models.manifest import Category
from pytest_tcab.models.manifest import CategoryItem
from pytest_tcab.models.manifest import Domain
from pytest_tcab.models.manifest import Manifest
from pytest_tcab.models.manifest import Proof
from pytest_tcab.models.manifest import Reference
from pytest_tcab.models.manifest import ReviewItem
from pytest_tcab.models.manifest import Validation
from pytest_tcab.models.manifest import VariantFile
from pytest_tcab.models.manifest import humanize
from pytest_tcab.paths import is_file
from pytest_tcab.resolve.common import Located
from pytest_tcab.resolve.common import duplicates
from pytest_tcab.resolve.common import norm
from pytest_tcab.resolve.common import second
from pytest_tcab.resolve.common import suggest
from pytest_tcab.resolve.common import where
from pytest_tcab.resolve.scope import VersionScope
from pytest_tcab.toml import TomlDocument

Drivers = list[tuple[Located, Validation]]
"""The validation tables of a checklist item, with where each was declared."""


class VariantRules:
    """The rules of one variant's effective set: common material plus the variant's own."""

    def __init__(self, parent: VersionScope, manifest: Manifest, slug: str,
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
                workspace = self.parent.path(vdoc, ("workspace",), own.workspace, "dir", "workspace", self.problems)
            if own.reference_implementation is not None:
                reference_impl = self.parent.path(vdoc, ("reference_implementation",), own.reference_implementation,
                                                   "dir", "reference implementation", self.problems)
            for i, spec in enumerate(own.spec):
                self.parent.path(vdoc, ("spec", i, "source"), spec.source, "file", "spec source", self.problems)
            for i, ref in enumerate(own.reference):
                self.parent.reference_file(vdoc, ("reference", i), ref.path, ref.media, self.problems)
        if workspace is None and (own is None or own.workspace is None) and manifest.workspace is not None:
            common = self.parent.folder / manifest.workspace
            try:
                workspace = common if common.is_dir() else None  # else reported by the common path rule
            except OSError:  # a name too long, a folder without permission: the path rule reports it
                workspace = None
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
        for dup in duplicates([d.id for d in common]):
            index = second([d.id for d in common], dup)
            if self.parent.is_first(self.slug):  # report a common clash once
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
        if self.parent.is_first(self.slug):
            for dup in duplicates(common_views):
                self.parent.common.append(self.doc.problem(("reference", second(common_views, dup), "view"),
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
                if scope == "common" and not self.parent.is_first(self.slug):
                    ids.add(proof.id)
                    dests.add(norm(proof.dest))
                    continue  # common clashes are reported once, with the first variant
                into = self.parent.common if scope == "common" else self.problems
                if proof.id in ids:
                    into.append(doc.problem(("proof", i, "id"), f"proof id {proof.id!r} is already declared",
                                            "proof ids must be unique within a variant's effective set"))
                if norm(proof.dest) in dests:
                    into.append(doc.problem(("proof", i, "dest"), f"proof dest {proof.dest!r} is already requested by another proof"))
                ids.add(proof.id)
                dests.add(norm(proof.dest))
        return list(common) + own

    def _check_references(self, references: list[Reference]) -> None:
        by_view = {r.view: r for r in references}
        for i, check in enumerate(self.manifest.check):
            ref = by_view.get(check.baseline_view)
            key = ("check", i, "reference" if check.reference is not None else "view")
            if ref is None and check.baseline_view in self.parent.dropped:
                continue  # the reference itself is broken, and reported
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
            seeded_as = norm(dest)
            if seeded_as in seeded:
                first = where(*seeded[seeded_as])
                self.problems.append(doc.problem(key, f"seeds {dest!r}, which {first} already seeds",
                                                 "give one of them an explicit, distinct `dest`"))
            else:
                seeded[seeded_as] = (doc, key)
        for i, proof in enumerate(proofs):
            dest = norm(proof.dest)
            common = i < len(self.manifest.proof)
            declared_in = self.doc if common else self.vdoc
            key = ("proof", i if common else i - len(self.manifest.proof), "dest")
            assert declared_in is not None
            collides = dest in seeded or (workspace is not None and is_file(workspace / dest))
            if collides:
                self.problems.append(declared_in.problem(key, f"proof dest {proof.dest!r} collides with a file seeded into "
                                                 f"the run of variant {self.slug!r}", "write proofs to a path nothing is seeded to, e.g. proof/<id>.png"))

    def _package_json(self, workspace: Path | None) -> None:
        """Each declared package must be a `file:./.tcab/packages/<name>` dependency of the workspace."""
        packages = self.manifest.packages
        if not packages or self.parent.case_type != "end-to-end":
            return  # `packages` outside end-to-end is already a problem of its own
        workspace_key: KeyPath = ("workspace",)
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
            self.problems.append(doc.problem(workspace_key, f"declares packages, but {workspace.name}/package.json is missing "
                                             "or not a JSON object with dependencies",
                                             "ship a package.json whose dependencies name each declared package"))
            return
        for name in packages:
            expected = f"file:./.tcab/packages/{name}"
            actual = deps.get(name)
            if actual is None:
                self.problems.append(doc.problem(workspace_key, f"{workspace.name}/package.json does not depend on package {name!r}",
                                                 f'add "{name}": "{expected}" to its dependencies'))
            elif actual != expected:
                self.problems.append(doc.problem(workspace_key, f"{workspace.name}/package.json points {name!r} at {actual!r}",
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
                ) -> list[tuple[ChecklistItem, Drivers]]:
        common_domains = {d.id for d in self.manifest.domain}
        out: list[tuple[ChecklistItem, Drivers]] = []
        verdict_ids: dict[str, Located] = {}
        scopes: list[tuple[TomlDocument, list[ReviewItem], bool]] = [(self.doc, self.manifest.review_item, True)]
        if self.own is not None and self.vdoc is not None:
            scopes.append((self.vdoc, self.own.review_item, False))
        for doc, items, common in scopes:
            for i, item in enumerate(items):
                key: KeyPath = ("review_item", i)
                into = self.problems
                allowed = common_domains if common else domains
                if item.domain is not None and item.domain not in allowed and item.domain not in self.parent.dropped:
                    hint = ("a common item may name only a common domain" if common and item.domain in domains
                            else suggest(item.domain, allowed, "domains"))
                    into.append(doc.problem(key + ("domain",), f"domain {item.domain!r} is not declared for variant {self.slug!r}", hint))
                self._media_links(doc, key, item.reference, item.proof, views, proofs)
                units: list[VerdictUnit] = []
                drivers: Drivers = []
                subs = item.subs
                sub_key = "sub_items" if item.sub_items is not None else "sub_item"
                if subs and item.validation is not None:
                    into.append(doc.problem(key + ("validation",), "an item with sub-items is verdicted per sub-item, "
                                            "so it cannot carry item-level `validation`",
                                            "move `validation` onto each sub-item"))
                if subs:
                    for dup in duplicates([s.id for s in subs]):
                        into.append(doc.problem(key + (sub_key, second([s.id for s in subs], dup), "id"),
                                                f"sub-item id {dup!r} is used twice in item {item.id!r}"))
                    for j, sub in enumerate(subs):
                        unit = VerdictUnit(f"{item.id}.{sub.id}", sub.title, item.weight / len(subs), sub.validation)
                        self._claim(verdict_ids, unit.id, Located(doc, key + (sub_key, j, "id")))
                        units.append(unit)
                        if sub.validation is not None:
                            drivers.append((Located(doc, key + (sub_key, j, "validation")), sub.validation))
                else:
                    units.append(VerdictUnit(item.id, item.title, item.weight, item.validation))
                    if item.validation is not None:
                        drivers.append((Located(doc, key + ("validation",)), item.validation))
                self._claim(verdict_ids, item.id, Located(doc, key + ("id",)))
                out.append((ChecklistItem(item.id, item.title, item.domain, tuple(units), text=item.text,
                                          reference=item.reference, proof=item.proof), drivers))
        return out

    def _claim(self, taken: dict[str, Located], verdict_id: str, declared: Located) -> None:
        if verdict_id in taken:
            first = taken[verdict_id]
            self.problems.append(declared.doc.problem(declared.key, f"id {verdict_id!r} is already used by "
                                                   f"{where(first.doc, first.key)}",
                                                   "item and verdict ids must be unique within a variant's "
                                                   "effective set (common plus its own)"))
        else:
            taken[verdict_id] = declared

    def _categories(self, views: set[str], proofs: set[str]
                    ) -> list[tuple[ChecklistItem, Drivers]]:
        assert self.manifest.review is not None
        merged: dict[str, tuple[str, list[tuple[TomlDocument, KeyPath, CategoryItem]]]] = {}
        scopes: list[tuple[TomlDocument, list[Category]]] = [(self.doc, self.manifest.review.categories)]
        if self.own is not None and self.vdoc is not None and self.own.review is not None:
            scopes.append((self.vdoc, self.own.review.categories))
        for s, (doc, categories) in enumerate(scopes):
            ids_here = [c.id for c in categories]
            for dup in duplicates(ids_here):
                self.problems.append(doc.problem(("review", "categories", second(ids_here, dup), "id"),
                                                 f"category id {dup!r} is declared twice in this file",
                                                 "a variant may extend a common category by reusing its id; "
                                                 "within one file each category is declared once"))
            for i, category in enumerate(categories):
                title, entries = merged.setdefault(category.id, (category.title, []))
                for j, item in enumerate(category.items):
                    entries.append((doc, ("review", "categories", i, "items", j), item))
        out: list[tuple[ChecklistItem, Drivers]] = []
        for cat_id, (title, entries) in merged.items():
            seen: dict[str, Located] = {}
            units: list[VerdictUnit] = []
            drivers: Drivers = []
            for doc, key, item in entries:
                if item.id in seen:
                    first = seen[item.id]
                    self.problems.append(doc.problem(key + ("id",), f"item id {item.id!r} is already used in category "
                                                     f"{cat_id!r} by {where(first.doc, first.key)}",
                                                     "item ids must be unique within their category"))
                seen.setdefault(item.id, Located(doc, key + ("id",)))
                self._media_links(doc, key, item.reference, item.proof, views, proofs)
                units.append(VerdictUnit(f"{cat_id}.{item.id}", item.title, item.weight, item.validation,
                                         text=item.description, reference=item.reference, proof=item.proof))
                if item.validation is not None:
                    drivers.append((Located(doc, key + ("validation",)), item.validation))
            out.append((ChecklistItem(cat_id, title, None, tuple(units)), drivers))
        return out

    def _media_links(self, doc: TomlDocument, key: KeyPath, reference: str | None, proof: str | None,
                     views: set[str], proofs: set[str]) -> None:
        if reference is not None and reference not in views and reference not in self.parent.dropped:
            self.problems.append(doc.problem(key + ("reference",), f"reference view {reference!r} does not resolve for "
                                             f"variant {self.slug!r}", suggest(reference, views, "views")))
        if proof is not None and proof not in proofs and proof not in self.parent.dropped:
            self.problems.append(doc.problem(key + ("proof",), f"proof {proof!r} does not resolve for variant "
                                             f"{self.slug!r}", suggest(proof, proofs, "proofs")))

    def _validation_rules(self, items: list[tuple[ChecklistItem, Drivers]]) -> None:
        drivers = [driver for _, found in items for driver in found]
        if drivers and self.manifest.instrumentation is None:
            declared = drivers[0][0]
            self.problems.append(declared.doc.problem(declared.key, "declares a validation script, but the case names no "
                                                   "debug-API handle",
                                                   'add [instrumentation] handle = "__yourgame" to test-case.toml'))
        scripts: dict[str, Located] = {}
        for declared, validation in drivers:
            self.parent.path(declared.doc, declared.key + ("script",), validation.script, "file", "validation script",
                              self.problems)
            outputs = [o.id for o in validation.outputs]
            for dup in duplicates(outputs):
                self.problems.append(declared.doc.problem(declared.key + ("outputs", second(outputs, dup), "id"),
                                                       f"output id {dup!r} is declared twice in this script's outputs"))
            videos = [i for i, o in enumerate(validation.outputs) if o.kind == "video"]
            if len(videos) > 1:
                self.problems.append(declared.doc.problem(declared.key + ("outputs", videos[1], "kind"),
                                                       f"declares {len(videos)} video outputs; a script may record at "
                                                       "most one video (the clip of the whole drive)"))
            script = norm(validation.script)
            if script in scripts:
                first = scripts[script]
                self.problems.append(declared.doc.problem(declared.key + ("script",),
                                                       f"script {validation.script!r} already drives "
                                                       f"{where(first.doc, first.key)}",
                                                       "a script drives one verdict unit: give each its own script"))
            scripts.setdefault(script, declared)
