"""The resolved shape of a case version: what every mode works from once resolution passed."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from pytest_tcab.models.check import Check
from pytest_tcab.models.errata import Erratum
from pytest_tcab.models.manifest import Build
from pytest_tcab.models.manifest import Domain
from pytest_tcab.models.manifest import Proof
from pytest_tcab.models.manifest import Reference
from pytest_tcab.models.manifest import SpecEntry
from pytest_tcab.models.manifest import Validation


@dataclass(frozen=True)
class VerdictUnit:
    """The graded unit: a whole item, a sub-item, or a category's item."""

    id: str
    """The verdict id: `item`, `item.sub` or `category.item`."""
    title: str
    weight: float
    """Points this unit is worth (a sub-item's share of its item's weight)."""
    validation: Validation | None


@dataclass(frozen=True)
class ChecklistItem:
    """A review item (or category) and the units its verdicts are recorded under."""

    id: str
    title: str
    domain: str | None
    units: tuple[VerdictUnit, ...]

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
class CaseVersion:
    """A resolved catalog case version (one `test-case.toml` and its variants)."""

    slug: str
    version: str
    case_type: str
    folder: Path
    manifest_path: Path
    name: str
    prompt: Path
    max_runtime_hours: float
    build: Build
    checks: tuple[Check, ...]
    handle: str | None
    assets: tuple[str, ...]
    packages: tuple[str, ...]
    variants: tuple[Variant, ...]
    errata: tuple[Erratum, ...]

    def variant(self, slug: str | None) -> Variant | None:
        """The named variant, or the default (first) one when `slug` is None."""
        if slug is None:
            return self.variants[0]
        return next((v for v in self.variants if v.slug == slug), None)
