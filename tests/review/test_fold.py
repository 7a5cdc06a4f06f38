"""Folding reviews into a run's figures: overrides, completeness, staleness, several reviewers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_tcab.review.fold import ReviewTarget
from pytest_tcab.review.fold import fold
from pytest_tcab.review.grammar import TIERS
from pytest_tcab.review.grammar import Review
from pytest_tcab.review.grammar import ReviewVerdict
from pytest_tcab.review.grammar import parse_review
from pytest_tcab.scoring import score

DIGEST = "ab" * 32
OTHER = "cd" * 32


def unit(unit_id: str, weight: float, automated: str) -> dict[str, Any]:
    return {"id": unit_id, "title": unit_id, "weight": weight, "automated": automated}


def results_run(errata: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """A results.json run as run mode writes it: the Carom checklist, two automated, three left."""
    return {
        "run": "carom-base", "variant": "base", "build_digest": DIGEST,
        "score": {"earned": 2.0, "available": 3.0, "declared": 6.0, "items": [
            {"id": "spin", "title": "Spin", "domain": "single-player", "units": [
                unit("spin.stationary", 1.0, "failed"), unit("spin.moving", 2.0, "passed"),
                unit("spin.decay", 1.0, "pending")]},
            {"id": "scoring", "title": "Scoring", "domain": None, "units": [
                unit("scoring.point", 1.0, "pending"), unit("scoring.display", 1.0, "excluded")]},
            {"id": "serve", "title": "Serve", "domain": None, "units": [unit("serve", 1.0, "pending")]},
        ]},
        "domains": {"set": [{"id": "single-player"}, {"id": "versus"}]},
        "errata": errata if errata is not None else [
            {"id": "display", "title": "t", "body": "b", "severity": "minor", "affects_scoring": False,
             "exclude_from_score": True, "review": "scoring.display", "variant": None, "resolved_in": None}],
    }


def review(text: str, reviewer: str = "ana") -> Review:
    run = results_run()
    return parse_review(text, Path(f"/reviews/carom-base/{reviewer}.md"), ReviewTarget.of(run))


COMPLETE = """---
rating.single-player: great
rating.versus: passable
review.spin.decay: pass fades in two seconds
review.scoring.point: fail no point on a goal
review.serve: pass
---
Played it.
"""


def test_the_target_is_read_from_the_results_run() -> None:
    target = ReviewTarget.of(results_run())
    assert target is not None
    assert target.verdict_ids == ("spin.stationary", "spin.moving", "spin.decay", "scoring.point",
                                  "scoring.display", "serve")
    assert target.split_items == {"spin": ("spin.stationary", "spin.moving", "spin.decay"),
                                  "scoring": ("scoring.point", "scoring.display")}
    assert target.domain_ids == ("single-player", "versus")
    assert target.build == DIGEST
    assert target.automated() == {"spin.stationary": False, "spin.moving": True}


def test_a_run_without_a_checklist_has_no_review() -> None:
    assert fold({"run": "bounce", "performance": {}}, []) is None
    assert ReviewTarget.of({"run": "x", "score": {"items": [{"id": "a"}]}}) is None  # written before units


def test_a_complete_review_decides_the_pending_points_and_rates_every_domain() -> None:
    found = fold(results_run(), [review(COMPLETE)])
    assert found is not None
    entry = found["reviews"][0]
    assert entry["complete"] and not entry["stale"] and not entry["pinned"]
    # stationary fails (0), moving passes (2), decay (1), point fails (0), serve (1); display is excluded
    assert entry["score"] == {"earned": 4.0, "available": 6.0, "value": round(4 / 6, 6)}
    assert entry["overall"] == "passable"
    assert entry["verdicts"]["spin.moving"] == {"outcome": "pass", "by": "validator", "note": None}
    assert entry["verdicts"]["spin.decay"] == {"outcome": "pass", "by": "reviewer", "note": "fades in two seconds"}
    assert entry["missing"] == {"verdicts": [], "domains": []}
    assert (found["score"], found["rating"], found["reviewed"], found["complete"]) == (
        entry["score"], "passable", 1, True)


def test_an_override_is_listed_with_its_note() -> None:
    text = COMPLETE.replace("---\nPlayed", "review.spin.stationary: pass the drift is the wind effect the spec asks for\n"
                                           "---\nPlayed")
    entry = fold(results_run(), [review(text)])["reviews"][0]  # type: ignore[index]
    assert entry["overrides"] == [{"id": "spin.stationary", "automated": "fail", "reviewed": "pass",
                                   "note": "the drift is the wind effect the spec asks for"}]
    assert entry["verdicts"]["spin.stationary"]["by"] == "override"
    assert entry["score"]["earned"] == 5.0 and entry["complete"]


def test_an_override_without_a_note_is_a_problem_with_its_line_and_counts_nowhere() -> None:
    text = COMPLETE.replace("---\nPlayed", "review.spin.stationary: pass\n---\nPlayed")
    found = fold(results_run(), [review(text)])
    assert found is not None
    entry = found["reviews"][0]
    assert not entry["complete"] and found["score"] is None and found["rating"] is None
    assert entry["problems"] == [
        "/reviews/carom-base/ana.md:7: `review.spin.stationary`: overrides the automated verdict (fail) without "
        "a note\n    Hint: say why after the verdict: `review.spin.stationary: pass <what you saw>`"]


def test_agreeing_with_a_validator_is_no_override() -> None:
    text = COMPLETE.replace("---\nPlayed", "review.spin.moving: pass\n---\nPlayed")
    entry = fold(results_run(), [review(text)])["reviews"][0]  # type: ignore[index]
    assert entry["overrides"] == [] and entry["verdicts"]["spin.moving"]["by"] == "validator"


def test_an_incomplete_review_says_what_it_misses_and_counts_nowhere() -> None:
    text = "---\nrating.versus: great\nreview.serve: pass\n---\nHalf done.\n"
    found = fold(results_run(), [review(text)])
    assert found is not None
    entry = found["reviews"][0]
    assert entry["missing"] == {"verdicts": ["spin.decay", "scoring.point"], "domains": ["single-player"]}
    assert not entry["complete"] and entry["overall"] is None
    assert (found["score"], found["rating"], found["reviewed"], found["reviews_total"]) == (None, None, 0, 1)


def test_an_excluded_point_needs_no_verdict() -> None:
    entry = fold(results_run(), [review(COMPLETE)])["reviews"][0]  # type: ignore[index]
    assert "scoring.display" not in entry["missing"]["verdicts"]


def test_a_review_of_another_build_is_stale_and_counts_nowhere() -> None:
    stale = review(f"---\nbuild: {OTHER}\n" + COMPLETE.removeprefix("---\n"), "bo")
    current = review(f"---\nbuild: {DIGEST}\n" + COMPLETE.removeprefix("---\n").replace("versus: passable",
                                                                                         "versus: great"))
    found = fold(results_run(), [current, stale])
    assert found is not None
    assert [(e["reviewer"], e["pinned"], e["stale"]) for e in found["reviews"]] == [("ana", True, False),
                                                                                  ("bo", True, True)]
    assert found["rating"] == "great" and found["reviewed"] == 1 and found["reviews_total"] == 2


def test_a_pinned_review_of_a_run_without_a_digest_is_stale() -> None:
    run = results_run()
    del run["build_digest"]
    found = fold(run, [review(f"---\nbuild: {DIGEST}\n" + COMPLETE.removeprefix("---\n"))])
    assert found is not None and found["reviews"][0]["stale"] and found["score"] is None


def test_several_reviewers_the_score_is_the_mean_and_the_rating_the_worst() -> None:
    ana = review(COMPLETE)  # 4 of 6, passable
    bo = review(COMPLETE.replace("review.serve: pass", "review.serve: fail").replace("passable", "broken"), "bo")
    cy = review("---\nrating.versus: flawless\n---\nNot finished.\n", "cy")
    found = fold(results_run(), [ana, bo, cy])
    assert found is not None
    assert found["score"] == {"earned": 3.5, "available": 6.0, "value": round((4 / 6 + 3 / 6) / 2, 6)}
    assert found["rating"] == "broken"
    assert (found["reviewed"], found["reviews_total"], found["complete"]) == (2, 3, True)


def test_malformed_and_ignored_files_are_listed() -> None:
    from pytest_tcab.review.grammar import ReviewProblems

    try:
        parse_review("---\nrating.versus: superb\n---\nx\n", Path("/r/bo.md"))
    except ReviewProblems as problems:
        found = fold(results_run(), [], problems=[problems], ignored=["/run/x.md: ignored: inside a run"])
    assert found is not None
    assert found["problems"][0].startswith("/r/bo.md:2: `rating.versus`: `superb` is not a tier")
    assert found["ignored"] == ["/run/x.md: ignored: inside a run"]
    assert found["reviews_total"] == 1 and found["reviewed"] == 0


def test_files_are_shown_relative_to_the_root() -> None:
    found = fold(results_run(), [review(COMPLETE)], root=Path("/reviews"))
    assert found is not None and found["reviews"][0]["file"] == "carom-base/ana.md"


# -- a review silent on automated points reproduces the automated figures exactly -----------------

AUTOMATED = ("passed", "failed", "pending", "excluded")


@st.composite
def runs_and_silent_reviews(draw: st.DrawFn) -> tuple[dict[str, Any], Review]:
    items = []
    for i in range(draw(st.integers(1, 5))):
        subs = draw(st.integers(0, 3))
        weight = draw(st.floats(min_value=0.1, max_value=10, allow_nan=False))
        ids = [f"i{i}"] if subs == 0 else [f"i{i}.s{j}" for j in range(subs)]
        items.append({"id": f"i{i}", "title": "", "domain": None,
                      "units": [unit(uid, weight / len(ids), draw(st.sampled_from(AUTOMATED))) for uid in ids]})
    domains = [f"d{k}" for k in range(draw(st.integers(1, 3)))]
    errata = [{"id": f"e{n}", "title": "t", "body": "b", "exclude_from_score": True, "review": u["id"]}
              for n, u in enumerate(u for item in items for u in item["units"] if u["automated"] == "excluded")]
    run = {"run": "r", "variant": "v", "build_digest": DIGEST, "score": {"items": items},
           "domains": {"set": [{"id": d} for d in domains]}, "errata": errata}
    pending = [u["id"] for item in items for u in item["units"] if u["automated"] == "pending"]
    verdicts = {uid: ReviewVerdict(draw(st.booleans())) for uid in pending if draw(st.booleans())}
    ratings = {d: draw(st.sampled_from(TIERS)) for d in domains if draw(st.booleans())}
    return run, Review(reviewer="ana", build=None, ratings=ratings, verdicts=verdicts, body="x")


@given(runs_and_silent_reviews())
def test_a_review_silent_on_automated_points_reproduces_the_automated_figures(
        drawn: tuple[dict[str, Any], Review]) -> None:
    run, silent = drawn
    target = ReviewTarget.of(run)
    assert target is not None
    entry = fold(run, [silent])["reviews"][0]  # type: ignore[index]
    automated = target.automated()
    assert entry["overrides"] == []
    on_automated = {uid: v for uid, v in entry["verdicts"].items() if uid in automated}
    assert on_automated == {uid: {"outcome": "pass" if v else "fail", "by": "validator", "note": None}
                            for uid, v in automated.items()}
    effective = {uid: v["outcome"] == "pass" for uid, v in entry["verdicts"].items()}
    restricted = score(target.variant, {uid: effective[uid] for uid in automated}, target.errata)
    alone = score(target.variant, automated, target.errata)
    assert (restricted.earned, restricted.decided_weight, restricted.available) == (
        alone.earned, alone.decided_weight, alone.available)
    reviewer_earned = sum(target.units[uid].weight for uid, v in silent.verdicts.items()
                          if v.passed and target.units[uid].automated != "excluded")
    assert entry["score"]["earned"] == pytest.approx(alone.earned + reviewer_earned)
    assert entry["complete"] == (not entry["missing"]["verdicts"] and not entry["missing"]["domains"])
