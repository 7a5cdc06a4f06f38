"""`requirement[<id>]` items: a game definition's requirements decided by their validators against the build.

An end-to-end or full-stack run builds, runs its toolchain, then each requirement of the covered
specifications becomes one item, reported at its `[[requirement]]` table. Each of its
`validators` (relative to the version's `validators/`; `.mjs`, or `.ts` with its types stripped)
is a validation script in any form run mode accepts, run in the judge runtime against the build
through `drivers.drive` with the requirement id as its verdict id; a false one lists each failed
expectation with both values. The requirement passes when every
validator says true, fails when one says false or cannot decide, and is left for the reviewer
when it has no validators or one leaves it open (null). The score is requirements passed over
requirements decided (`scoring_report.py`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from pytest_tcab.case import SeededSpecification
from pytest_tcab.case import VerdictUnit
from pytest_tcab.errors import TcabError
from pytest_tcab.models.definition import CODE_TYPES
from pytest_tcab.models.definition import Requirement
from pytest_tcab.models.manifest import Validation
from pytest_tcab.outcomes import skip_unless_strict
from pytest_tcab.run.browser.item import BrowserFunction
from pytest_tcab.run.browser.item import browser_test
from pytest_tcab.run.browser.session import BrowserSession
from pytest_tcab.run.context import RunContext
from pytest_tcab.run.item import RunItem
from pytest_tcab.run.judge.drivers import drive
from pytest_tcab.run.judge.drivers import false_reason
from pytest_tcab.toml import line_in

VALIDATORS_FOLDER = "validators"
"""Requirement validators live in `<version>/validators/`, reporter-side (never seeded)."""
MEDIA_FOLDER = "requirements"
"""A run's requirement media go to `<out>/<run>/requirements/`."""


class RequirementFailed(TcabError):
    """A validator decided false, or could not decide (a load-bearing failure)."""


class RequirementItem(RunItem, BrowserFunction):
    """`requirement[<id>]`: one requirement, decided by its validators against the run's build."""

    kind = "requirement"
    drives_judge = True

    def __init__(self, *, specification: SeededSpecification, requirement: Requirement, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.specification = specification
        self.requirement = requirement

    def use_browser(self, browser: BrowserSession) -> None:
        requirement = self.requirement
        self.record(specification=self.specification.id, text=requirement.text, requirement_kind=requirement.kind,
                    validators=list(requirement.validators))
        if not requirement.validators:
            self.record(verdict=None)
            skip_unless_strict(self.config, "left for the reviewer: no validator decides this requirement")
        self.run.require_build()
        timeout_s = float(self.config.getoption("tcab_driver_timeout"))
        media_dir = self.run.out_dir / MEDIA_FOLDER
        failures: list[str] = []
        open_notes: list[str] = []
        decided: list[dict[str, Any]] = []
        for index, validator in enumerate(requirement.validators):
            script = f"{VALIDATORS_FOLDER}/{validator}"
            unit = VerdictUnit(id=requirement.id, title=requirement.text, weight=1.0,
                               validation=Validation(script=script))
            still = media_dir / f"{requirement.id}__{index + 1}.png"
            media_dir.mkdir(parents=True, exist_ok=True)
            outcome = drive(browser, self.run, unit, media_dir, timeout_s, still=still)
            notes = outcome.result.notes
            page = outcome.media.get("page")
            decided.append({"validator": validator, "verdict": outcome.verdict, "notes": notes,
                            "error": outcome.result.error, "media": str(page) if page else None,
                            "page_errors": list(outcome.page_errors)})
            if outcome.result.error is not None:
                failures.append(f"{validator}: {outcome.result.error}" + (f"\n    notes: {notes}" if notes else ""))
            elif outcome.verdict is False:
                failures.append(f"{validator}: false: {false_reason(outcome.result)}")
            elif outcome.verdict is None:
                open_notes.append(f"{validator}: {notes or 'its precondition was not met (no notes)'}")
        verdict = False if failures else None if open_notes else True
        self.record(verdict=verdict, decided_by=decided)
        if failures:
            raise RequirementFailed(f'requirement "{requirement.id}" ({requirement.kind}) is not met: '
                                    f"{requirement.text}\n" + "\n".join(f"  {line}" for line in failures))
        if open_notes:
            skip_unless_strict(self.config, "left for the reviewer: " + "; ".join(open_notes))


@pytest.hookimpl(tryfirst=True)
def pytest_tcab_run_items(run: RunContext, parent: pytest.Collector) -> Iterator[pytest.Item]:
    """One `requirement[<id>]` per requirement of the specifications a game definition covers."""
    definition = run.case.definition
    if definition is None or definition.case_type not in CODE_TYPES:
        return
    for specification in definition.specifications:
        for index, requirement in enumerate(specification.requirements):
            line = line_in(specification.source, ("requirement", index))
            yield RequirementItem.from_parent(
                parent, name=f"requirement[{requirement.id}]", callobj=browser_test, run=run, key=requirement.id,
                location=(specification.source, line), specification=specification, requirement=requirement,
            )
