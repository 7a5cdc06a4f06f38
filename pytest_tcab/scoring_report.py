"""The scored part of results.json: what the drivers decided, and what is left for the reviewer."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any

import pytest

from pytest_tcab.errors import TcabError
from pytest_tcab.scoring import score

if TYPE_CHECKING:
    from pytest_tcab.results import RunRecord


def for_run(config: pytest.Config, record: RunRecord) -> dict[str, Any]:
    """`score` and `errata` for a game run, `performance` for a performance run."""
    items = list(record.items.values())
    if any(item["kind"] in ("fuel", "correctness") for item in items):
        return {"performance": _performance(items)}
    variant, errata = _resolved(config, record.identity)
    if variant is None:
        return {}
    verdicts: dict[str, bool | None] = {}
    for item in items:
        if item["kind"] == "validate":
            verdicts[item["id"]] = {"passed": True, "failed": False}.get(item["outcome"])
            if item["outcome"] == "excluded":
                verdicts[item["id"]] = False
    result = score(variant, verdicts, errata)
    return {
        "score": {
            "earned": result.earned,
            "available": result.available,
            "automated": sorted(v for v, d in verdicts.items() if d is not None),
            "failed": sorted(v for v, d in verdicts.items() if d is False),
            "pending": list(result.pending),
            "pending_weight": result.pending_weight,
            "items": [
                {"id": i.id, "earned": i.earned, "available": i.available, "pending": list(i.pending),
                 "excluded": list(i.excluded)}
                for i in result.items
            ],
        },
        "errata": [
            {"id": e.id, "title": e.title, "severity": e.severity, "affects_scoring": e.affects_scoring,
             "exclude_from_score": e.exclude_from_score, "review": e.review}
            for e in errata
        ],
    }


def _resolved(config: pytest.Config, identity: dict[str, str]) -> tuple[Any, tuple[Any, ...]]:
    from pytest_tcab.run import RunSpec
    from pytest_tcab.run import find_case
    from pytest_tcab.session import suite_for

    suite = suite_for(config, Path(identity["source"]))
    try:
        case, variant = find_case(suite, RunSpec(identity["case"], identity["version"], identity["variant"]))
    except TcabError:  # the run's collection already reported why it does not resolve
        return None, ()
    applies = tuple(e for e in case.errata if e.variant in (None, variant.slug))
    return variant, applies


def _performance(items: list[dict[str, Any]]) -> dict[str, Any]:
    stress = [i for i in items if i["kind"] == "fuel"]
    correct = bool(stress) and all(i["outcome"] == "passed" for i in items if i["kind"] in ("fuel", "correctness"))
    build = next((i for i in items if i["kind"] == "build"), {})
    return {
        "correct": correct,
        "total_fuel": sum(i.get("fuel", 0) for i in stress) if correct else None,
        "wasmtime": build.get("wasmtime"),
        "module_sha256": build.get("module_sha256"),
        "cases": {i["id"]: {"outcome": i["outcome"], "fuel": i.get("fuel")} for i in stress},
    }
