"""The scored part of results.json: what the drivers decided, and what is left for the reviewer."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any

import pytest

from pytest_tcab.case import ChecklistItem
from pytest_tcab.case import Variant
from pytest_tcab.errors import TcabError
from pytest_tcab.outcomes import OVER_CEILING
from pytest_tcab.outcomes import UNSTABLE
from pytest_tcab.outcomes import verdict_of
from pytest_tcab.scoring import RATING_SCALE
from pytest_tcab.scoring import ItemScore
from pytest_tcab.scoring import domain_summaries
from pytest_tcab.scoring import excluded_verdicts
from pytest_tcab.scoring import score
from pytest_tcab.scoring import verdict_word

if TYPE_CHECKING:
    from pytest_tcab.run.report.records import RunRecord


def for_run(config: pytest.Config, record: RunRecord) -> dict[str, Any]:
    """`score` and `errata` for a game run, `performance` for a performance run, `tournament` for an
    adversarial run (its standings: an adversarial case has no checklist), `toolchain` for a
    code-producing definition's run (which has no checklist to score).

    `errata` are the known issues of the run's version that apply to its variant, each with its
    `affects_scoring` advisory (the reviewer weighs it) and `exclude_from_score` (applied here).
    """
    items = list(record.items.values())
    if any(item["kind"] in ("fuel", "correctness") for item in items):
        return {"performance": _performance(items)}
    standings = next((item for item in items if item["kind"] == "standings"), None)
    if standings is not None:
        return {"tournament": _tournament(standings, items)}
    if record.identity.get("layout") == "definition":
        # No checklist: a game definition is rated by its toolchain and scored by its requirements.
        found: dict[str, Any] = {}
        if any(item["kind"] == "toolchain" for item in items):
            found["toolchain"] = _toolchain(items)
        if any(item["kind"] == "requirement" for item in items):
            found["requirements"] = _requirements(items)
        return found
    variant, errata, common_domains = _resolved(config, record.identity)
    if variant is None:
        return {}
    excluded = excluded_verdicts(variant, errata)
    # A skipped verdict (left for the reviewer, no browser) decides nothing; an excluded one
    # still ran, but no longer counts on either side of the score; an unstable one is unearned.
    verdicts: dict[str, bool | None] = {
        item["id"]: verdict_of(item["outcome"])
        for item in items if item["kind"] == "validate" and item["id"] not in excluded
    }
    unstable = sorted(item["id"] for item in items if item["kind"] == "validate" and item["outcome"] == UNSTABLE
                      and item["id"] not in excluded)
    result = score(variant, verdicts, errata)
    weights = {unit.id: unit.weight for unit in variant.units()}
    decided = sorted(v for v, d in verdicts.items() if d is not None)
    failed = sorted(v for v, d in verdicts.items() if d is False and v not in unstable)
    # A partial run (-k, -m, --lf): a verdict left out was not run here, not left for the reviewer.
    not_run = sorted(item["id"] for item in record.deselected.values() if item["kind"] == "validate")
    pending = [v for v in result.pending if v not in not_run]
    return {
        # The automated score counts only the points a validator decided, on both sides (the public
        # Test Cabinet's "automated-only" score); `declared` is every point, which needs a review.
        "score": {
            "earned": result.earned,
            "available": result.decided_weight,
            "declared": result.available,
            "decided_weight": sum(weights.get(v, 0.0) for v in decided),
            "failed_weight": sum(weights.get(v, 0.0) for v in failed),
            "pending_weight": sum(weights.get(v, 0.0) for v in pending) if not_run else result.pending_weight,
            **({"not_run": not_run, "not_run_weight": sum(weights.get(v, 0.0) for v in not_run)} if not_run else {}),
            "automated": decided,
            "failed": failed,
            **({"unstable": unstable} if unstable else {}),
            "pending": pending,
            "excluded": sorted(excluded),
            "items": [_item(item, scored, verdicts, excluded, not_run)
                      for item, scored in zip(variant.checklist, result.items, strict=True)],
        },
        "domains": _domains(variant, common_domains, verdicts, excluded),
        "errata": [
            {"id": e.id, "title": e.title, "severity": e.severity, "affects_scoring": e.affects_scoring,
             "exclude_from_score": e.exclude_from_score, "review": e.review, "variant": e.variant,
             "resolved_in": e.resolved_in, "body": e.body}
            for e in errata
        ],
    }


def _item(item: ChecklistItem, scored: ItemScore, verdicts: dict[str, bool | None], excluded: frozenset[str],
          not_run: list[str]) -> dict[str, Any]:
    """One checklist item's share, automated (`available`: its decided weight) and declared, and its
    verdict units with their weights and what the drivers made of them (what a review completes)."""

    def automated(unit_id: str) -> str:
        if unit_id in excluded:
            return "excluded"
        if unit_id in not_run:
            return "not_run"
        return verdict_word(verdicts.get(unit_id))

    return {"id": item.id, "title": item.title, "domain": item.domain, "earned": scored.earned,
            "available": scored.decided_weight, "declared": scored.available, "pending": list(scored.pending),
            "excluded": list(scored.excluded),
            "units": [{"id": unit.id, "title": unit.title, "weight": unit.weight, "automated": automated(unit.id)}
                      for unit in item.units]}


def _domains(variant: Variant, common: tuple[str, ...], verdicts: dict[str, bool | None],
             excluded: frozenset[str]) -> dict[str, Any]:
    """The run variant's effective domain set, each domain's items with their automated outcomes,
    and the ratings, which are the reviewer's: left empty here, with the scale they are given on."""
    return {
        "scale": list(RATING_SCALE),
        "overall": None,
        "overall_rule": "the worst rating across the effective domain set",
        "rated_by": "reviewer",
        "set": [
            {"id": d.id, "name": d.name, "description": d.description, "common": d.common, "rating": None,
             "items": [{"id": i.id, "title": i.title, "outcomes": dict(i.outcomes)} for i in d.items]}
            for d in domain_summaries(variant, common, verdicts, excluded)
        ],
    }


def _resolved(config: pytest.Config, identity: dict[str, Any]) -> tuple[Any, tuple[Any, ...], tuple[str, ...]]:
    from pytest_tcab.run.collect import run_suite
    from pytest_tcab.run.spec import RunSpec
    from pytest_tcab.run.spec import find_case

    suite = run_suite(config, Path(identity["source"]))
    try:
        case, variant = find_case(suite, RunSpec(identity["case"], identity["version"], identity["variant"]))
    except TcabError:  # the run's collection already reported why it does not resolve
        return None, (), ()
    applies = tuple(e for e in case.errata if e.variant in (None, variant.slug))
    return variant, applies, case.common_domains


def _performance(items: list[dict[str, Any]]) -> dict[str, Any]:
    """The performance result: total stress fuel when every answer was right within the ceiling.

    An over-ceiling case answered correctly but earns no comparable figure, and a stress case
    skipped because a smoke case failed arrives here already counted as failed, so either one
    leaves `total_fuel` empty while `cases` still shows each figure that was measured.
    """
    build = next((i for i in items if i["kind"] == "build"), {})
    smoke = [i for i in items if i["kind"] == "correctness"]
    stress = [i for i in items if i["kind"] == "fuel"]
    answered = {"passed", OVER_CEILING}
    # Stress items already fail when the build did and count as failed when a smoke case did,
    # so they alone decide, even in a run narrowed with -k to the fuel items.
    correct = bool(stress) and all(i["outcome"] == "passed" for i in smoke) and all(
        i["outcome"] in answered for i in stress)
    within = correct and all(i["outcome"] == "passed" for i in stress)
    return {
        "correct": correct,
        "within_ceiling": within,
        "total_fuel": sum(i["fuel"] for i in stress) if within else None,
        "wasmtime": build.get("wasmtime"),
        "module_sha256": build.get("module_sha256"),
        "cases": {i["id"]: {"outcome": i["outcome"], "fuel": i.get("fuel"), "fuel_limit": i.get("fuel_limit")}
                  for i in stress},
    }


def _tournament(standings: dict[str, Any], items: list[dict[str, Any]]) -> dict[str, Any]:
    """The standings, who won, and the modules they were played with (fuel compares within one
    wasmtime version only)."""
    builds = {item["id"]: item.get("module_sha256") for item in items if item["kind"] == "build"}
    wasmtime = next((item.get("wasmtime") for item in items if item.get("wasmtime")), None)
    return {
        "played": standings["outcome"] == "passed",
        "structure": standings.get("structure"),
        "champion": standings.get("champion"),
        "standings": standings.get("standings", []),
        "final_match": standings.get("final_match"),
        "wasmtime": wasmtime,
        "modules": builds,
    }


def _requirements(items: list[dict[str, Any]]) -> dict[str, Any]:
    """The score of a game definition's run: requirements passed over requirements decided.

    A requirement left for the reviewer (no validators, a validator's precondition unmet, no
    browser) decides nothing, so it is on neither side; `score` is None while nothing is decided.
    """
    rows = [item for item in items if item["kind"] == "requirement"]
    passed = sorted(item["id"] for item in rows if item["outcome"] == "passed")
    failed = sorted(item["id"] for item in rows if item["outcome"] == "failed")
    pending = sorted(item["id"] for item in rows if item["outcome"] not in ("passed", "failed"))
    decided = len(passed) + len(failed)
    return {
        "passed": passed,
        "failed": failed,
        "pending": pending,
        "decided": decided,
        "score": round(len(passed) / decided, 4) if decided else None,
    }


def _toolchain(items: list[dict[str, Any]]) -> dict[str, Any]:
    """Each toolchain step's outcome and exit code, and the rating the required one decides.

    `broken` is None when the required step did not run in this session (deselected with -k),
    since a rating that was never taken must not read as a clean one.
    """
    steps = {
        item["id"]: {"outcome": item["outcome"], "required": item.get("required"), "command": item.get("command"),
                     "returncode": item.get("returncode")}
        for item in items if item["kind"] == "toolchain"
    }
    required = [step for step in steps.values() if step["required"]]
    broken = None if not required else any(step["outcome"] != "passed" for step in required)
    return {"broken": broken, "steps": steps}
