"""The pytest entry point: options, configuration and which files become tcab collectors."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_tcab.author import ManifestFile
from pytest_tcab.author import SuiteConfigFile
from pytest_tcab.resolve.manifest import catalog_type
from pytest_tcab.session import SUITE_INI
from pytest_tcab.session import SUITE_OPTION
from pytest_tcab.session import configured_root
from pytest_tcab.session import experimental_allowed
from pytest_tcab.suite import CONFIG_FILE
from pytest_tcab.suite import MANIFEST_FILE


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("tcab", "Test Cabinet suites")
    group.addoption(
        SUITE_OPTION,
        dest="tcab_suite",
        metavar="SUITE",
        help="collect the Test Cabinet suite rooted at SUITE (alone, when no paths are given)",
    )
    parser.addini(SUITE_INI, "default for --tcab-suite, relative to the ini file")
    group.addoption(
        "--tcab-experimental",
        dest="tcab_experimental",
        action="store_true",
        help="collect experimental cases too (as TCAB_BACKEND_ALLOW_EXPERIMENTAL=1 does)",
    )


def pytest_configure(config: pytest.Config) -> None:
    root = configured_root(config)
    if root is None:
        return
    if not root.is_dir():
        raise pytest.UsageError(f"{SUITE_OPTION}: {root} is not a directory")
    # Given a suite and no paths, collect the suite alone rather than the project's testpaths.
    if config.args_source != pytest.Config.ArgsSource.ARGS:
        config.args = [str(root)]


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if file_path.name == MANIFEST_FILE and catalog_type(file_path)[0] is not None:
        return ManifestFile.from_parent(parent, path=file_path)
    if file_path.name == CONFIG_FILE:
        return SuiteConfigFile.from_parent(parent, path=file_path)
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Experimental cases are hidden unless the deployment opts in: report them as deselected."""
    if experimental_allowed(config):
        return
    hidden = [item for item in items if getattr(item, "experimental", False)]
    if hidden:
        config.hook.pytest_deselected(items=hidden)
        items[:] = [item for item in items if not getattr(item, "experimental", False)]
