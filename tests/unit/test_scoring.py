"""Scoring: weights, sub-item shares, category items, exclusions, the worst domain rating."""

from __future__ import annotations

import pytest

from pytest_tcab.case import ChecklistItem
from pytest_tcab.case import Variant
from pytest_tcab.case import VerdictUnit
from pytest_tcab.models.errata import Erratum
from pytest_tcab.models.manifest import Domain
from pytest_tcab.scoring import RATING_SCALE
from pytest_tcab.scoring import domain_summaries
from pytest_tcab.scoring import overall_rating
from pytest_tcab.scoring import score


def variant(*items: ChecklistItem, domains: tuple[str, ...] = ("solo",)) -> Variant:
    return Variant(
        slug="base", name="Base", description=None, workspace=None, reference_implementation=None,
        specs=(), references=(), proofs=(), checklist=items,
        domains=tuple(Domain(id=d, description=d) for d in domains),
    )


def legacy_item(item_id: str, weight: float, subs: tuple[str, ...] = ()) -> ChecklistItem:
    if not subs:
        return ChecklistItem(item_id, item_id, None, (VerdictUnit(item_id, item_id, weight, None),))
    share = weight / len(subs)
    return ChecklistItem(item_id, item_id, None, tuple(VerdictUnit(f"{item_id}.{s}", s, share, None) for s in subs))


def test_two_point_item_with_two_sub_items_awards_one_point_per_pass() -> None:
    result = score(variant(legacy_item("ball-spin", 2, ("stationary", "moving"))),
                   {"ball-spin.stationary": True, "ball-spin.moving": False})
    assert (result.earned, result.available) == (1.0, 2.0)


def test_one_point_item_with_three_sub_items_awards_a_third_each() -> None:
    result = score(variant(legacy_item("layout", 1, ("a", "b", "c"))), {"layout.a": True})
    assert result.earned == pytest.approx(1 / 3)
    assert result.pending == ("layout.b", "layout.c")
    assert result.pending_weight == pytest.approx(2 / 3)


def test_category_is_the_sum_of_its_items() -> None:
    category = ChecklistItem("spin", "Spin", None, (
        VerdictUnit("spin.stationary", "", 1, None), VerdictUnit("spin.moving", "", 2, None)))
    assert category.weight == 3
    result = score(variant(category), {"spin.moving": True, "spin.stationary": False})
    assert (result.earned, result.available, result.value) == (2.0, 3.0, pytest.approx(2 / 3))


def test_exclude_from_score_removes_the_point_from_both_sides() -> None:
    checklist = variant(legacy_item("a", 1), legacy_item("b", 3, ("x", "y")))
    erratum = Erratum(id="e", title="t", body="b", review="b", exclude_from_score=True)
    result = score(checklist, {"a": True, "b.x": False, "b.y": False}, [erratum])
    assert (result.earned, result.available) == (1.0, 1.0)
    assert result.items[1].excluded == ("b.x", "b.y")


def test_erratum_scoped_to_another_variant_does_not_exclude() -> None:
    erratum = Erratum(id="e", title="t", body="b", review="a", exclude_from_score=True, variant="frenzy")
    assert score(variant(legacy_item("a", 1)), {"a": False}, [erratum]).available == 1.0


def test_overall_rating_is_the_worst_domain() -> None:
    checklist = variant(domains=("solo", "versus"))
    assert overall_rating(checklist, {"solo": 5, "versus": 2}) == 2
    with pytest.raises(ValueError, match="domains not rated yet: versus"):
        overall_rating(checklist, {"solo": 5})


def test_domains_list_their_items_with_automated_outcomes() -> None:
    solo = ChecklistItem("serve", "Serve", "solo", (VerdictUnit("serve.a", "a", 0.5, None),
                                                    VerdictUnit("serve.b", "b", 0.5, None)))
    versus = ChecklistItem("duel", "Duel", "versus", (VerdictUnit("duel", "Duel", 1, None),))
    unassigned = ChecklistItem("misc", "Misc", None, (VerdictUnit("misc", "Misc", 1, None),))
    found = domain_summaries(variant(solo, versus, unassigned, domains=("solo", "versus")), ("solo",),
                             {"serve.a": True, "serve.b": False}, frozenset({"duel"}))
    assert [(d.id, d.common, [(i.id, dict(i.outcomes)) for i in d.items]) for d in found] == [
        ("solo", True, [("serve", {"serve.a": "passed", "serve.b": "failed"})]),
        ("versus", False, [("duel", {"duel": "excluded"})]),
    ]
    assert RATING_SCALE[0] == "flawless" and RATING_SCALE[-1] == "broken"
