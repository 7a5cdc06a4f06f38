"""Author mode: each catalog manifest is a file of items, one per rule scope.

`resolve[<variant>]` holds every rule of a variant's effective set, `slug` the suite-level
identity rules, `errata.toml::errata` the rules of `errata.toml` (a collector of that file under
the manifest, so the id names the file an explorer opens); `tcab.toml::config` the suite's own
configuration; `<path>::layout` a file that looks like a case where no layout puts it. A
failure prints each problem at its file and line, with no traceback.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any

import pytest

from pytest_tcab.case import CaseVersion
from pytest_tcab.errors import Problem
from pytest_tcab.items import CaseFile
from pytest_tcab.items import ProblemsItem
from pytest_tcab.items import first_location
from pytest_tcab.items import suite_key_location
from pytest_tcab.layout import MANIFEST_FILE
from pytest_tcab.layout import Misplaced
from pytest_tcab.prompts import catalog_template_items
from pytest_tcab.resolve.manifest import ERRATA_FILE
from pytest_tcab.resolve.suite import slug_problems
from pytest_tcab.seeding import catalog_seed_items
from pytest_tcab.seeding import seed_key
from pytest_tcab.session import experimental_allowed
from pytest_tcab.session import suite_for

if TYPE_CHECKING:
    from pytest_tcab.suite import Suite

REFERENCE_RUN_PREFIX = "reference-"
"""A case file's reference run of a variant is its collector `reference-<variant>`."""


class ManifestFile(CaseFile):
    """`test-case.toml`: resolved once; its items share the resolution."""

    def collect(self) -> Iterator[pytest.Item | pytest.Collector]:
        suite = suite_for(self.config, self.path)
        resolution = suite.resolve(self.path)
        experimental = resolution.experimental
        self.case_label = case_label(suite, self.path)
        if self.config.stash.get(seed_key, None) is not None and resolution.clean and resolution.case is not None:
            yield from catalog_seed_items(self, suite, resolution.case, experimental)  # writing takes a clean case
            return
        for slug in resolution.variant_slugs:
            problems = resolution.problems_for(slug)
            yield ProblemsItem.from_parent(
                self, name=f"resolve[{slug}]", check=lambda problems=problems: problems,
                where=first_location(problems, self.path)
                or suite_key_location(suite, self.path, ("variants",), ("slug",)),
                experimental=experimental,
            )
        if resolution.errata is not None:
            errata = self.path.parent / ERRATA_FILE
            yield errata_toml(self, errata, self.nodeid.rpartition("/")[0])
        yield ProblemsItem.from_parent(
            self, name="slug", check=lambda: slug_problems(suite, self.path),
            where=suite_key_location(suite, self.path, ("slug",)), experimental=experimental,
        )
        if resolution.case is not None:
            # A partial case holds only what resolved: its templates render and its seeding is planned.
            yield from catalog_template_items(self, resolution.case, experimental)
            yield from catalog_seed_items(self, suite, resolution.case, experimental)
        if not resolution.clean or resolution.case is None:
            return  # a reference or baseline run needs the case as its files say it
        if experimental and not experimental_allowed(self.config):
            return  # an experimental case is never run unless the deployment opts in
        if self.config.getoption("tcab_reference"):
            yield from self._reference_runs(resolution.case)
        if self.config.getoption("tcab_capture_baselines"):
            from pytest_tcab.run.judge.baselines import baseline_items

            yield from baseline_items(self, resolution.case)

    def release_case(self) -> None:
        suite_for(self.config, self.path).release(self.path)

    def _reference_runs(self, case: CaseVersion) -> Iterator[pytest.Collector]:
        """`--tcab-reference`: each variant's reference implementation, validated as a run."""
        from pytest_tcab.run.collect import ReferenceRun
        from pytest_tcab.run.collect import reference_context

        for variant in case.variants:
            if variant.reference_implementation is None:
                continue
            run = reference_context(self.config, case, variant)
            yield ReferenceRun.from_parent(self, name=f"{REFERENCE_RUN_PREFIX}{variant.slug}", run=run)


def case_label(suite: Suite, manifest: Path) -> str:
    """`<slug>@<version>` of the catalog manifest at `manifest`, what its failure headers start with."""
    return f"{suite.resolve(manifest).slug or manifest.parent.parent.name}@{manifest.parent.name}"


class ErrataToml(pytest.Collector):
    """`errata.toml`: its one `errata` item, under the file an IDE opens for it.

    A child of its manifest in a suite's collection (so `-k`, `-m` and the matrix see the case
    around it), and collected by itself when named on the command line (`.../errata.toml::errata`);
    its node id is the file's path either way, as pytest names a file (`errata_toml`).
    """

    case_label = ""

    def collect(self) -> Iterator[pytest.Item]:
        manifest = self.path.parent / MANIFEST_FILE
        suite = suite_for(self.config, manifest)
        resolution = suite.resolve(manifest)
        self.case_label = case_label(suite, manifest)
        problems = resolution.errata or []
        yield ProblemsItem.from_parent(self, name="errata", check=lambda: problems,
                                       where=first_location(problems, self.path), experimental=resolution.experimental)


def errata_collector(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """`errata.toml` named on the command line (an id under it): its collector, if it is a case's."""
    from pytest_tcab.resolve.manifest import catalog_type

    manifest = file_path.parent / MANIFEST_FILE
    if (file_path.name != ERRATA_FILE or not parent.session.isinitpath(file_path) or not manifest.is_file()
            or catalog_type(manifest)[0] is None):
        return None  # collected in a folder, it is its manifest's child
    return errata_toml(parent, file_path, parent.nodeid)


def errata_toml(parent: pytest.Collector, path: Path, folder_nodeid: str) -> ErrataToml:
    """The collector of `path`, named as pytest names a file in the folder whose id is `folder_nodeid`."""
    nodeid = f"{folder_nodeid}/{path.name}" if folder_nodeid else path.name
    return ErrataToml.from_parent(parent, name=path.name, path=path, nodeid=nodeid)


class SuiteConfigFile(CaseFile):
    """`tcab.toml`: the suite's engines and package store."""

    def collect(self) -> Iterator[pytest.Item]:
        suite = suite_for(self.config, self.path)
        self.case_label = self.path.name
        problems = suite.config_problems
        yield ProblemsItem.from_parent(self, name="config", check=lambda: problems,
                                       where=first_location(problems, self.path))


class MisplacedFile(CaseFile):
    """A file that looks like a case where no layout puts it: one `layout` item that fails saying why."""

    def __init__(self, *, misplaced: Misplaced, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.misplaced = misplaced

    def collect(self) -> Iterator[pytest.Item]:
        self.case_label = self.path.name
        problem = Problem(self.path, None, (), self.misplaced.message, self.misplaced.hint)
        yield ProblemsItem.from_parent(self, name="layout", check=lambda: [problem], where=(self.path, None))
