"""Author mode for the test-suite layout: each file of a suite version is a file of items.

`versions/<version>/test-cases/<slug>.toml` yields `resolve` (every rule of the definition,
and the problems of the specifications and assets it seeds or produces), `slug` (the slug
rules across both layouts), and, once it resolves, `template[...]` and `seed[...]` items.
`version.toml`, each `specifications/**/specification.toml` and each `assets/<id>/asset.toml`
yield a `resolve` item of their own, so a broken specification is reported where it is.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_tcab.items import CaseFile
from pytest_tcab.items import ProblemsItem
from pytest_tcab.items import first_location
from pytest_tcab.items import suite_key_location
from pytest_tcab.prompts import definition_template_items
from pytest_tcab.resolve.definition import ASSET_FILE
from pytest_tcab.resolve.definition import SPECIFICATION_FILE
from pytest_tcab.resolve.definition import VERSION_FILE
from pytest_tcab.resolve.definition import definition_version_folder
from pytest_tcab.resolve.definition import version_folder_of
from pytest_tcab.resolve.suite import definition_slug_problems
from pytest_tcab.seeding import definition_seed_items
from pytest_tcab.seeding import seed_key
from pytest_tcab.session import suite_for


class DefinitionFile(CaseFile):
    """`test-cases/<slug>.toml`: resolved once; its items share the resolution."""

    def collect(self) -> Iterator[pytest.Item]:
        suite = suite_for(self.config, self.path)
        resolution = suite.resolve_definition(self.path)
        self.case_label = f"{self.path.stem}@{self.path.parents[1].name}"
        experimental = resolution.experimental
        if self.config.stash.get(seed_key, None) is not None and resolution.clean and resolution.case is not None:
            yield from definition_seed_items(self, suite, resolution.case, experimental)
            return
        problems = resolution.problems
        yield ProblemsItem.from_parent(self, name="resolve", check=lambda: problems,
                                       where=first_location(problems, self.path), experimental=experimental)
        yield ProblemsItem.from_parent(self, name="slug", check=lambda: definition_slug_problems(suite, self.path),
                                       where=suite_key_location(suite, self.path, ("name",)), experimental=experimental)
        if resolution.case is not None:
            # A partial case holds only what resolved: its templates render and its seeding is planned.
            yield from definition_template_items(self, resolution.case, suite.config, experimental)
            yield from definition_seed_items(self, suite, resolution.case, experimental)


class VersionTreeFile(CaseFile):
    """`version.toml`, a `specification.toml` or an `asset.toml`: its own rules, in one `resolve` item."""

    def collect(self) -> Iterator[pytest.Item]:
        folder = version_folder_of(self.path)
        assert folder is not None  # only such paths are collected as this
        self.case_label = f"{folder.name} {self.path.relative_to(folder).as_posix()}"
        problems = suite_for(self.config, self.path).version_tree(folder).file_problems(self.path)
        yield ProblemsItem.from_parent(self, name="resolve", check=lambda: problems,
                                       where=first_location(problems, self.path))


def collect_definition_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """The collector of a test-suite layout file, or None for any other path."""
    if definition_version_folder(file_path) is not None:
        return DefinitionFile.from_parent(parent, path=file_path)
    folder = version_folder_of(file_path)
    if folder is None:
        return None
    relative = file_path.relative_to(folder)
    if (relative == Path(VERSION_FILE)
            or (relative.parts[0] == "specifications" and file_path.name == SPECIFICATION_FILE)
            or (relative.parts[0] == "assets" and len(relative.parts) == 3 and file_path.name == ASSET_FILE)):
        return VersionTreeFile.from_parent(parent, path=file_path)
    return None
