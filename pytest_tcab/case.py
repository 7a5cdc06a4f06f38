"""The resolved shape of a case version: what every mode works from once resolution passed."""

from __future__ import annotations

from collections.abc import Iterator
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pytest_tcab.models.adversarial import AdversarialContract
from pytest_tcab.models.adversarial import AdversarialSandbox
from pytest_tcab.models.adversarial import Match
from pytest_tcab.models.adversarial import Simulation
from pytest_tcab.models.check import Check
from pytest_tcab.models.definition import Definition
from pytest_tcab.models.definition import Requirement
from pytest_tcab.models.definition import Toolchain
from pytest_tcab.models.errata import Erratum
from pytest_tcab.models.manifest import Build
from pytest_tcab.models.manifest import Domain
from pytest_tcab.models.manifest import Proof
from pytest_tcab.models.manifest import Reference
from pytest_tcab.models.manifest import SpecEntry
from pytest_tcab.models.manifest import Validation
from pytest_tcab.models.performance import Contract
from pytest_tcab.models.performance import PerfBuild
from pytest_tcab.models.performance import PerfCase
from pytest_tcab.models.performance import Sandbox


@dataclass(frozen=True)
class VerdictUnit:
    """The graded unit: a whole item, a sub-item, or a category's item."""

    id: str
    """The verdict id: `item`, `item.sub` or `category.item`."""
    title: str
    weight: float
    """Points this unit is worth (a sub-item's share of its item's weight)."""
    validation: Validation | None
    text: str | None = None
    """What the reviewer reads (a category's item's description); a sub-item shares its item's."""
    reference: str | None = None
    """The reference view shown as the expected target (a category's item's own)."""
    proof: str | None = None
    """The proof id whose submitted media is shown (a category's item's own)."""


@dataclass(frozen=True)
class ChecklistItem:
    """A review item (or category) and the units its verdicts are recorded under."""

    id: str
    title: str
    domain: str | None
    units: tuple[VerdictUnit, ...]
    text: str | None = None
    """What the reviewer reads (a legacy item's text; a category has none)."""
    reference: str | None = None
    """The reference view its units share (a legacy item's)."""
    proof: str | None = None
    """The proof id its units share (a legacy item's)."""

    @property
    def weight(self) -> float:
        return sum(unit.weight for unit in self.units)


@dataclass(frozen=True)
class Variant:
    """One build a case offers, with its effective (common plus own) material."""

    slug: str
    name: str
    description: str | None
    workspace: Path | None
    reference_implementation: Path | None
    specs: tuple[SpecEntry, ...]
    references: tuple[Reference, ...]
    proofs: tuple[Proof, ...]
    checklist: tuple[ChecklistItem, ...]
    domains: tuple[Domain, ...]

    def units(self) -> Iterator[VerdictUnit]:
        for item in self.checklist:
            yield from item.units

    def reference(self, view: str) -> Reference | None:
        return next((ref for ref in self.references if ref.view == view), None)


@dataclass(frozen=True)
class Performance:
    """The tables only a performance case carries: they replace the checklist as what is scored."""

    build: PerfBuild
    """Install and build commands, and where the wasm module is left."""
    contract: Contract
    sandbox: Sandbox
    cases: tuple[PerfCase, ...]
    """Held-out inputs in manifest order, so item `i` maps back to `[[case]]` number `i`."""


@dataclass(frozen=True)
class Adversarial:
    """The tables only an adversarial case carries, with every path they name resolved."""

    build: PerfBuild
    """Install and build commands, and where the controller's wasm module is left."""
    contract: AdversarialContract
    sandbox: AdversarialSandbox
    simulation: Simulation
    match: Match
    referee: Path
    """The referee module, loaded by path (trusted, reporter-side)."""
    action_schema: Path
    house: tuple[Path, ...]
    """Reporter-side controllers that join every tournament, in declaration order."""
    renderer: Path | None
    """The replay page, when the case declares one."""


@dataclass(frozen=True)
class CaseVersion:
    """A resolved case version as run mode validates it: a catalog `test-case.toml` and its
    variants, or a test-suite definition recast as one (a single default variant, no checklist)."""

    slug: str
    version: str
    case_type: str
    folder: Path
    manifest_path: Path
    name: str
    prompt: Path
    max_runtime_hours: float
    build: Build | None
    """None for an asset-producing definition: its run is files, not a build."""
    checks: tuple[Check, ...]
    handle: str | None
    assets: tuple[str, ...]
    packages: tuple[str, ...]
    variants: tuple[Variant, ...]
    errata: tuple[Erratum, ...]
    performance: Performance | None = None
    """Set for a performance case, whose items come from these tables rather than the checklist."""
    adversarial: Adversarial | None = None
    """Set for an adversarial case, whose items are a tournament of the runs' controllers."""
    toolchain: Toolchain | None = None
    """Set for a code-producing definition: the commands run over the built implementation."""
    common_domains: tuple[str, ...] = ()
    """Ids of the domains the case declares for every variant (each variant may add its own)."""
    layout: Literal["catalog", "definition"] = "catalog"
    """Where the case was declared; `manifest_path` is the definition file for a definition."""
    definition: DefinitionCase | None = None
    """The resolved definition a test-suite run comes from: its requirements and produced asset."""
    tick_hz: int | None = None
    """`[instrumentation] tick_hz`: validation scripts count whole ticks of this rate."""

    def variant(self, slug: str | None) -> Variant | None:
        """The named variant, or the default (first) one when `slug` is None."""
        if slug is None:
            return self.variants[0]
        return next((v for v in self.variants if v.slug == slug), None)


@dataclass(frozen=True)
class SeededSpecification:
    """A specification a definition covers: seeded as its prose followed by its requirements."""

    id: str
    name: str
    summary: str
    path: str
    """Where the document lands under `specs/` of the run workspace."""
    source: Path
    """Its `specification.toml`."""
    prose: Path
    """Its `specification.md`."""
    requirements: tuple[Requirement, ...]


@dataclass(frozen=True)
class SuppliedAsset:
    """An asset of the suite version: given to an end-to-end run (seeded under `assets/<id>/`), or
    the reference an asset-producing run is measured against."""

    id: str
    kind: str
    """The asset type (`sprite`, `sprite-sheet`, `voxel`, ...), which decides how a file is measured."""
    folder: Path
    files: tuple[str, ...]
    source: Path
    """Its `asset.toml`."""


@dataclass(frozen=True)
class DefinitionCase:
    """A resolved test-suite definition (`versions/<version>/test-cases/<slug>.toml`)."""

    slug: str
    """The file stem."""
    version: str
    """The version folder's name."""
    case_type: str
    folder: Path
    """The suite tree: every path the definition names is relative to it."""
    path: Path
    name: str
    prompt: Path
    max_runtime_hours: float
    init: str | None
    engines: tuple[str, ...]
    """The engines a run may select; `("none",)` for a type that declares none."""
    workspaces: Mapping[str, Path]
    """Engine slug -> starter folder; an engine without one starts from an empty workspace."""
    specifications: tuple[SeededSpecification, ...]
    """In the order the definition lists them (path order when it lists none)."""
    assets: tuple[SuppliedAsset, ...]
    """What an end-to-end run is given; no other type is given assets."""
    schemas: tuple[str, ...]
    """Contract schemas of a performance or adversarial case, seeded as documentation."""
    produces: SuppliedAsset | None
    """The reference asset an asset-producing definition asks the model for."""
    model: Definition
    """The validated definition, for the tables of its type."""
