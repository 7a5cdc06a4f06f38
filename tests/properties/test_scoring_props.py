"""Scoring invariants over random checklists and verdicts."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_tcab.case import ChecklistItem
from pytest_tcab.case import VerdictUnit
from pytest_tcab.models.errata import Erratum
from pytest_tcab.scoring import score
from tests.unit.test_scoring import variant

weights = st.floats(min_value=0.01, max_value=100, allow_nan=False)


@st.composite
def checklists(draw: st.DrawFn) -> tuple[list[ChecklistItem], list[float]]:
    items, declared = [], []
    for i in range(draw(st.integers(1, 6))):
        weight = draw(weights)
        subs = draw(st.integers(0, 4))
        declared.append(weight)
        if subs == 0:
            units = (VerdictUnit(f"i{i}", "", weight, None),)
        else:
            units = tuple(VerdictUnit(f"i{i}.s{j}", "", weight / subs, None) for j in range(subs))
        items.append(ChecklistItem(f"i{i}", "", None, units))
    return items, declared


verdict = st.sampled_from([True, False, None])


@given(checklists(), st.data())
def test_score_is_within_bounds_and_total_is_the_declared_weight(case, data) -> None:
    items, declared = case
    checklist = variant(*items)
    verdicts = {u.id: data.draw(verdict) for u in checklist.units()}
    result = score(checklist, verdicts)
    assert 0.0 <= result.value <= 1.0 + 1e-9
    # Splitting an item into sub-items never changes the total available.
    assert result.available == pytest.approx(sum(declared))
    assert result.earned + result.pending_weight <= result.available + 1e-9


@given(checklists(), st.data())
def test_exclusions_remove_exactly_the_excluded_weight(case, data) -> None:
    items, declared = case
    checklist = variant(*items)
    excluded = data.draw(st.sets(st.sampled_from([i.id for i in items])))
    errata = [Erratum(id=f"e{n}", title="t", body="b", review=item, exclude_from_score=True)
              for n, item in enumerate(sorted(excluded))]
    verdicts = {u.id: data.draw(verdict) for u in checklist.units()}
    result = score(checklist, verdicts, errata)
    kept = sum(w for item, w in zip(items, declared) if item.id not in excluded)
    assert result.available == pytest.approx(kept)
    assert 0.0 <= result.value <= 1.0 + 1e-9
