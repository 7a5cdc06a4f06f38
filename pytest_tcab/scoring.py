"""Scoring a variant's checklist from its verdicts (`spec/manifests.md`, DESIGN "Scoring").

Pure functions: a pass earns a unit's weight, a fail earns none, a unit left undecided is
pending (the reviewer's to decide). A sub-item's unit carries an even share of its item's
weight, a category's unit its own weight, so the available total is always the sum of the
declared item weights, less whatever an erratum excludes from the score.

Two scores come of it: the full score (earned over `available`, every declared point: complete
only once a review has decided every point) and the automated score (earned over
`decided_weight`, the points a validator decided: the public Test Cabinet's "automated-only").
"""

from __future__ import annotations

from collections.abc import Iterable
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol
from typing import TypeVar

from pytest_tcab.case import Variant
from pytest_tcab.models.errata import Erratum

Verdict = bool | None
"""True passes, False fails, None is left for the reviewer."""


def verdict_word(verdict: Verdict) -> str:
    """A verdict as results.json words it: `passed`, `failed`, or `pending` (left for the reviewer);
    `outcomes.verdict_of` reads it back."""
    return "pending" if verdict is None else ("passed" if verdict else "failed")


class _Ordered(Protocol):
    def __lt__(self, other: object, /) -> bool: ...


R = TypeVar("R", bound=_Ordered)


@dataclass(frozen=True)
class ItemScore:
    """One checklist item's (or category's) share of the score."""

    id: str
    earned: float
    available: float
    pending: tuple[str, ...]
    """Verdict ids still to be decided."""
    pending_weight: float
    excluded: tuple[str, ...]
    decided_weight: float
    """Weight decided (passed or failed): the automated score's denominator, where `available`
    (every point not excluded) is the full score's."""


@dataclass(frozen=True)
class Score:
    """The run's score so far: what is decided, and what is still the reviewer's."""

    earned: float
    available: float
    items: tuple[ItemScore, ...]

    @property
    def value(self) -> float:
        """Earned over available weight; 0 when nothing is scorable."""
        return self.earned / self.available if self.available else 0.0

    @property
    def pending(self) -> tuple[str, ...]:
        return tuple(unit for item in self.items for unit in item.pending)

    @property
    def pending_weight(self) -> float:
        """Weight still to be decided by a reviewer."""
        return sum(item.pending_weight for item in self.items)

    @property
    def decided_weight(self) -> float:
        """Weight decided: the automated score's denominator, where `available` is the full score's."""
        return sum(item.decided_weight for item in self.items)

    @property
    def automated_value(self) -> float:
        """Earned over decided weight (the public Test Cabinet's "automated-only" score); 0 when
        nothing is decided."""
        return self.earned / self.decided_weight if self.decided_weight else 0.0


def excluded_verdicts(variant: Variant, errata: Iterable[Erratum]) -> frozenset[str]:
    """Verdict ids an erratum removes from this variant's score (an item id excludes all its units)."""
    excluded: set[str] = set()
    for erratum in errata:
        if not erratum.exclude_from_score or erratum.review is None:
            continue
        if erratum.variant is not None and erratum.variant != variant.slug:
            continue
        for item in variant.checklist:
            for unit in item.units:
                if erratum.review in (unit.id, item.id):
                    excluded.add(unit.id)
    return frozenset(excluded)


def score(variant: Variant, verdicts: Mapping[str, Verdict], errata: Iterable[Erratum] = ()) -> Score:
    """Score `variant` from `verdicts` keyed by verdict id; a missing id counts as pending."""
    excluded = excluded_verdicts(variant, errata)
    items = []
    for item in variant.checklist:
        earned = available = pending_weight = decided = 0.0
        pending: list[str] = []
        skipped: list[str] = []
        for unit in item.units:
            if unit.id in excluded:
                skipped.append(unit.id)
                continue
            available += unit.weight
            verdict = verdicts.get(unit.id)
            if verdict is None:
                pending.append(unit.id)
                pending_weight += unit.weight
                continue
            decided += unit.weight
            if verdict:
                earned += unit.weight
        items.append(ItemScore(item.id, earned, available, tuple(pending), pending_weight, tuple(skipped), decided))
    return Score(
        earned=sum(i.earned for i in items),
        available=sum(i.available for i in items),
        items=tuple(items),
    )


RATING_SCALE = ("flawless", "great", "passable", "scuffed", "broken")
"""The reviewer's per-domain ratings, best first; the run's overall rating is the worst of them."""


@dataclass(frozen=True)
class DomainItem:
    """A checklist item a domain rates, with what the drivers decided of its verdict units."""

    id: str
    title: str
    outcomes: Mapping[str, str]
    """Verdict id -> `passed`, `failed`, `pending` (left for the reviewer) or `excluded`."""


@dataclass(frozen=True)
class DomainSummary:
    """A domain of the run variant's effective set: what the reviewer rates, and what informs it."""

    id: str
    name: str
    description: str
    common: bool
    """Declared by the case (rated for every variant) rather than by this variant alone."""
    items: tuple[DomainItem, ...]


def domain_summaries(variant: Variant, common: Iterable[str], verdicts: Mapping[str, Verdict],
                     excluded: frozenset[str] = frozenset()) -> tuple[DomainSummary, ...]:
    """The variant's effective domain set (common plus its own), each with the items naming it.

    The categories grammar attaches no domain to a point, so its domains list no items; the
    ratings themselves are always the reviewer's.
    """
    common_ids = set(common)

    def outcome(unit_id: str) -> str:
        if unit_id in excluded:
            return "excluded"
        return verdict_word(verdicts.get(unit_id))

    return tuple(
        DomainSummary(
            id=domain.id, name=domain.display_name, description=domain.description, common=domain.id in common_ids,
            items=tuple(DomainItem(item.id, item.title, {unit.id: outcome(unit.id) for unit in item.units})
                        for item in variant.checklist if item.domain == domain.id),
        )
        for domain in variant.domains
    )


def overall_rating(variant: Variant, ratings: Mapping[str, R]) -> R:
    """The worst rating across the variant's effective domains, so no mode masks another."""
    missing = [d.id for d in variant.domains if d.id not in ratings]
    if missing:
        raise ValueError(f"domains not rated yet: {', '.join(missing)}")
    if not variant.domains:
        raise ValueError("the variant declares no scoring domain")
    return min(ratings[d.id] for d in variant.domains)
