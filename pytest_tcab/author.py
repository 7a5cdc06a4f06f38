"""Author mode: each catalog manifest is a file of items, one per rule scope.

`resolve[<variant>]` holds every rule of a variant's effective set, `errata` the rules of
`errata.toml`, `slug` the suite-level identity rules; `tcab.toml::config` the suite's own
configuration. A failure prints each problem at its file and line, with no traceback.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_tcab.case import CaseVersion
from pytest_tcab.errors import KeyPath
from pytest_tcab.errors import Problem
from pytest_tcab.errors import ProblemsFound
from pytest_tcab.failures import item_failure
from pytest_tcab.nodeids import match_saved_form
from pytest_tcab.resolve.manifest import ERRATA_FILE
from pytest_tcab.resolve.suite import slug_problems
from pytest_tcab.session import suite_for
from pytest_tcab.toml import line_in

Location = tuple[Path, int | None]
"""A file and its 1-based line (None: the top of the file)."""


class ProblemsItem(pytest.Item):
    """An item that passes when its rules find no problem, and lists every problem otherwise.

    Its location is what an author would open: the first problem found at collection, else
    `where` (the TOML key the item is about), else the top of its file.
    """

    def __init__(self, *, check: Callable[[], list[Problem]], where: Location | None = None,
                 experimental: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        match_saved_form(self)
        self._check = check
        self._where = where
        self.experimental = experimental

    def runtest(self) -> None:
        problems = self._check()
        if problems:
            raise ProblemsFound(problems, self.config.rootpath)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, ProblemsFound):
            return item_failure(self, excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        path, line = self._where or (self.path, None)
        return path, (line - 1) if line else 0, f"tcab: {self.name}"


class ManifestFile(pytest.File):
    """`test-case.toml`: resolved once; its items share the resolution."""

    def collect(self) -> Iterator[pytest.Item | pytest.Collector]:
        suite = suite_for(self.config, self.path)
        resolution = suite.resolve(self.path)
        experimental = resolution.experimental
        # Imported here: both build on this module's ProblemsItem.
        from pytest_tcab.prompts import catalog_template_items
        from pytest_tcab.seeding import catalog_seed_items
        from pytest_tcab.seeding import seed_key

        if self.config.stash.get(seed_key, None) is not None and resolution.case is not None:
            yield from catalog_seed_items(self, suite, resolution.case, experimental)
            return
        for slug in resolution.variant_slugs:
            problems = resolution.problems_for(slug)
            yield ProblemsItem.from_parent(
                self, name=f"resolve[{slug}]", check=lambda problems=problems: problems,
                where=first_location(problems) or key_location(self.path, ("variants",), ("slug",)),
                experimental=experimental,
            )
        if resolution.errata is not None:
            errata = resolution.errata
            yield ProblemsItem.from_parent(
                self, name="errata", check=lambda: errata,
                where=first_location(errata) or (self.path.parent / ERRATA_FILE, 1), experimental=experimental,
            )
        yield ProblemsItem.from_parent(
            self, name="slug", check=lambda: slug_problems(suite, self.path),
            where=key_location(self.path, ("slug",)), experimental=experimental,
        )
        if resolution.case is not None:
            yield from catalog_template_items(self, resolution.case, experimental)
            yield from catalog_seed_items(self, suite, resolution.case, experimental)
        if self.config.getoption("tcab_reference") and resolution.case is not None:
            yield from self._reference_runs(resolution.case)
        if self.config.getoption("tcab_capture_baselines") and resolution.case is not None:
            from pytest_tcab.run.baselines import baseline_items

            yield from baseline_items(self, resolution.case)

    def _reference_runs(self, case: CaseVersion) -> Iterator[pytest.Collector]:
        """`--tcab-reference`: each variant's reference implementation, validated as a run."""
        from pytest_tcab.run.context import ReferenceRun
        from pytest_tcab.run.context import reference_context

        for variant in case.variants:
            if variant.reference_implementation is None:
                continue
            run = reference_context(self.config, case, variant)
            yield ReferenceRun.from_parent(self, name=f"reference-{variant.slug}", run=run)


class SuiteConfigFile(pytest.File):
    """`tcab.toml`: the suite's engines and package store."""

    def collect(self) -> Iterator[pytest.Item]:
        suite = suite_for(self.config, self.path)
        problems = suite.config_problems
        yield ProblemsItem.from_parent(self, name="config", check=lambda: problems,
                                       where=first_location(problems))


def first_location(problems: list[Problem]) -> Location | None:
    """Where the first located problem is: where the item's location should lead."""
    return next(((p.path, p.line) for p in problems if p.line), None)


def key_location(path: Path, *keys: KeyPath) -> Location:
    """The line of the first of `keys` declared in `path` (else its top): what an item is about."""
    return path, next((line for key in keys if (line := line_in(path, key))), 1)
