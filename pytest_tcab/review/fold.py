"""Folding reviews into a run's figures: the results.json `review` key.

A review's effective checklist is the validators' verdicts overlaid with the review's lines: a
line decides a point left to the reviewer, or overrides an automated verdict (which needs a note).
A review is complete when every verdict unit of the run's variant has a verdict and every domain
of its effective set is rated; it is current when it names the build graded now (`build:`), or
names none (unpinned: it applies to the build graded now). Only complete, current reviews count:
the run's score is the mean of their scores, its rating the worst of their overall ratings.

Everything is read from the results.json run (`score.items[].units`, `domains.set`, `errata`,
`build_digest`), so a merged or resumed sweep folds its reviews as a fresh one does.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_tcab.case import ChecklistItem
from pytest_tcab.case import Variant
from pytest_tcab.case import VerdictUnit
from pytest_tcab.errors import Problem
from pytest_tcab.models.errata import Erratum
from pytest_tcab.outcomes import verdict_of
from pytest_tcab.review.grammar import TIERS
from pytest_tcab.review.grammar import Review
from pytest_tcab.review.grammar import ReviewProblems
from pytest_tcab.scoring import Verdict
from pytest_tcab.scoring import score

VALIDATOR, REVIEWER, OVERRIDE = "validator", "reviewer", "override"
"""Who decided a point of a review's effective checklist."""


@dataclass(frozen=True)
class Unit:
    """A verdict unit of the run's variant, with what the drivers made of it."""

    id: str
    item: str
    title: str
    weight: float
    automated: str
    """`passed`, `failed`, `pending` (left for the reviewer), `excluded` (by an erratum) or `not_run`."""

    @property
    def decided(self) -> Verdict:
        return verdict_of(self.automated)


@dataclass(frozen=True)
class ReviewTarget:
    """What a run asks of its reviews: its verdict units, its effective domains, its build."""

    run: str
    build: str | None
    units: Mapping[str, Unit]
    domains: tuple[str, ...]
    variant: Variant
    errata: tuple[Erratum, ...]

    @classmethod
    def of(cls, run: Mapping[str, Any]) -> ReviewTarget | None:
        """The target of a results.json run; None for a run with no checklist to review."""
        items = (run.get("score") or {}).get("items")
        if not items or not all("units" in item for item in items):
            return None
        units = {unit["id"]: Unit(unit["id"], item["id"], unit.get("title", ""), float(unit["weight"]),
                                  unit.get("automated", "pending"))
                 for item in items for unit in item["units"]}
        checklist = tuple(ChecklistItem(item["id"], item.get("title", ""), item.get("domain"),
                                        tuple(VerdictUnit(u["id"], u.get("title", ""), float(u["weight"]), None)
                                              for u in item["units"]))
                          for item in items)
        domains = tuple(domain["id"] for domain in (run.get("domains") or {}).get("set", []))
        variant = Variant(slug=str(run.get("variant", "")), name=str(run.get("variant", "")), description=None,
                          workspace=None, reference_implementation=None, specs=(), references=(), proofs=(),
                          checklist=checklist, domains=())
        errata = tuple(Erratum.model_validate({k: v for k, v in erratum.items() if v is not None})
                       for erratum in run.get("errata", []) if erratum.get("exclude_from_score"))
        return cls(str(run.get("run", "")), run.get("build_digest"), units, domains, variant, errata)

    # -- what the grammar checks a review against (`grammar.ReviewKeys`) --
    @property
    def verdict_ids(self) -> tuple[str, ...]:
        return tuple(self.units)

    @property
    def domain_ids(self) -> tuple[str, ...]:
        return self.domains

    @property
    def split_items(self) -> dict[str, tuple[str, ...]]:
        return {item.id: tuple(unit.id for unit in item.units) for item in self.variant.checklist
                if any(unit.id != item.id for unit in item.units)}

    def automated(self) -> dict[str, Verdict]:
        """The verdicts the drivers decided."""
        return {unit.id: unit.decided for unit in self.units.values() if unit.decided is not None}

    def counted(self) -> list[Unit]:
        """The units a review must verdict: every one an erratum does not exclude from the score."""
        return [unit for unit in self.units.values() if unit.automated != "excluded"]


def fold(run: Mapping[str, Any], reviews: Iterable[Review], *, problems: Iterable[ReviewProblems] = (),
         ignored: Iterable[str] = (), root: Path | None = None, folder: Path | None = None) -> dict[str, Any] | None:
    """The run's `review` key from its reviews (and the review files that could not be read, or
    were ignored, and the `folder` they were read from); None for a run with no checklist."""
    target = ReviewTarget.of(run)
    if target is None:
        return None
    reviews = list(reviews)
    problems = list(problems)
    folded = [fold_review(target, review, root) for review in reviews]
    counting = [entry for entry in folded if entry["complete"] and not entry["stale"]]
    values = [entry["score"]["value"] for entry in counting]
    found: dict[str, Any] = {
        "build": target.build,
        "folder": _shown(folder, root),
        "score": None if not counting else {
            "earned": _mean([entry["score"]["earned"] for entry in counting]),
            "available": counting[0]["score"]["available"],
            "value": _mean(values),
        },
        "rating": None if not counting else max((entry["overall"] for entry in counting), key=TIERS.index),
        "reviewed": len(counting),
        "reviews_total": len(reviews) + len(problems),
        "complete": bool(counting),
        "reviews": folded,
    }
    if problems:
        found["problems"] = [line for found_problems in problems for line in _lines(found_problems.problems, root)]
    if ignored:
        found["ignored"] = list(ignored)
    return found


def fold_review(target: ReviewTarget, review: Review, root: Path | None = None) -> dict[str, Any]:
    """One review's effective checklist, score, ratings and what it still misses."""
    verdicts: dict[str, dict[str, Any]] = {}
    overrides: list[dict[str, Any]] = []
    problems: list[Problem] = []
    effective: dict[str, Verdict] = dict(target.automated())
    for unit in target.units.values():
        line = review.verdicts.get(unit.id)
        automated = unit.decided
        if line is None:
            if automated is not None:
                verdicts[unit.id] = {"outcome": _word(automated), "by": VALIDATOR, "note": None}
            continue
        effective[unit.id] = line.passed
        if automated is None:
            verdicts[unit.id] = {"outcome": line.outcome, "by": REVIEWER, "note": line.note}
        elif automated == line.passed:
            verdicts[unit.id] = {"outcome": line.outcome, "by": VALIDATOR, "note": line.note}
        else:
            verdicts[unit.id] = {"outcome": line.outcome, "by": OVERRIDE, "note": line.note}
            overrides.append({"id": unit.id, "automated": _word(automated), "reviewed": line.outcome,
                              "note": line.note})
            if not line.note:
                problems.append(Problem(
                    review.path or Path(f"{review.reviewer}.md"), review.lines.get(f"review.{unit.id}"),
                    ("review", *unit.id.split(".")),
                    f"overrides the automated verdict ({_word(automated)}) without a note",
                    f"say why after the verdict: `review.{unit.id}: {line.outcome} <what you saw>`"))
    for unit_id in review.verdicts:
        if unit_id not in target.units:  # a review read without the target (or of another variant)
            problems.append(Problem(review.path or Path(f"{review.reviewer}.md"),
                                    review.lines.get(f"review.{unit_id}"), ("review", *unit_id.split(".")),
                                    "unknown verdict id: not in the run variant's checklist"))
    for domain in review.ratings:
        if domain not in target.domains:
            problems.append(Problem(review.path or Path(f"{review.reviewer}.md"),
                                    review.lines.get(f"rating.{domain}"), ("rating", domain),
                                    "unknown domain: not in the run variant's effective set"))
    missing_verdicts = [unit.id for unit in target.counted() if effective.get(unit.id) is None]
    missing_domains = [domain for domain in target.domains if domain not in review.ratings]
    result = score(target.variant, effective, target.errata)
    ratings = {domain: review.ratings[domain] for domain in target.domains if domain in review.ratings}
    pinned = review.build is not None
    stale = pinned and review.build != target.build
    complete = not missing_verdicts and not missing_domains and not problems and bool(target.domains)
    entry: dict[str, Any] = {
        "reviewer": review.reviewer,
        "when": review.when,
        "file": _shown(review.path, root),
        "build": review.build,
        "pinned": pinned,
        "stale": stale,
        "complete": complete,
        "score": {"earned": result.earned, "available": result.available, "value": round(result.value, 6)},
        "ratings": ratings,
        "overall": max(ratings.values(), key=TIERS.index) if ratings and not missing_domains else None,
        "verdicts": verdicts,
        "overrides": overrides,
        "missing": {"verdicts": missing_verdicts, "domains": missing_domains},
    }
    if problems:
        entry["problems"] = _lines(problems, root)
    return entry


def _word(verdict: bool) -> str:
    return "pass" if verdict else "fail"


def _mean(values: list[float]) -> float:
    return round(sum(values) / len(values), 6)


def _shown(path: Path | None, root: Path | None) -> str | None:
    if path is None:
        return None
    if root is not None:
        try:
            return Path(os.path.relpath(path, root)).as_posix()
        except ValueError:
            pass
    return str(path)


def _lines(problems: Iterable[Problem], root: Path | None) -> list[str]:
    return [problem.format(root) for problem in problems]
