"""The pytest entry point: options, configuration and which paths become tcab collectors."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_tcab import seeding
from pytest_tcab.author import ManifestFile
from pytest_tcab.author import SuiteConfigFile
from pytest_tcab.checks import MAX_DIFF_OPTION
from pytest_tcab.checks import VIEWPORT_OPTION
from pytest_tcab.checks import parse_ratio
from pytest_tcab.checks import parse_viewport
from pytest_tcab.definitions import collect_definition_file
from pytest_tcab.drivers import DRIVER_TIMEOUT_OPTION
from pytest_tcab.resolve.manifest import catalog_type
from pytest_tcab.seeding import SEED_OPTION
from pytest_tcab.seeding import configure_seed
from pytest_tcab.seeding import seed_key
from pytest_tcab.session import SUITE_INI
from pytest_tcab.session import SUITE_OPTION
from pytest_tcab.session import configured_root
from pytest_tcab.session import experimental_allowed
from pytest_tcab.suite import CONFIG_FILE
from pytest_tcab.suite import MANIFEST_FILE

# Each feature module is a plugin of its own (hooks and fixtures beside the code they serve).
pytest_plugins = ["pytest_tcab.browser", "pytest_tcab.outcomes", "pytest_tcab.baselines"]

RUN_OPTION = "--tcab-run"
WASM_TIMEOUT_OPTION = "--tcab-wasm-timeout"
WASM_CACHE_OPTION = "--tcab-wasm-cache"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("tcab", "Test Cabinet suites")
    group.addoption(SUITE_OPTION, dest="tcab_suite", metavar="SUITE",
                    help="collect the Test Cabinet suite rooted at SUITE (alone, when no paths are given)")
    parser.addini(SUITE_INI, "default for --tcab-suite, relative to the ini file")
    group.addoption("--tcab-experimental", dest="tcab_experimental", action="store_true",
                    help="collect experimental cases too (as TCAB_BACKEND_ALLOW_EXPERIMENTAL=1 does)")
    group.addoption(RUN_OPTION, dest="tcab_run", metavar="DIR",
                    help="validate the produced implementation in DIR (its .tcab/run.toml names the case)")
    group.addoption("--tcab-case", dest="tcab_case", metavar="SLUG[@VERSION][#VARIANT][:ENGINE]",
                    help="the case a run was produced for; overrides DIR/.tcab/run.toml")
    group.addoption("--tcab-reference", dest="tcab_reference", action="store_true",
                    help="validate every variant's reference_implementation as a run")
    group.addoption(SEED_OPTION, dest="tcab_seed", metavar="SLUG[@VERSION][#VARIANT][:ENGINE]",
                    help="write what a run of the case receives into --tcab-out=DIR (an empty folder)")
    group.addoption("--tcab-out", dest="tcab_out", metavar="DIR",
                    help="where results.json, report.html and media go (default .tcab/results)")
    group.addoption("--tcab-build-timeout", dest="tcab_build_timeout", type=float, default=600.0,
                    metavar="SECONDS", help="timeout of each build step (default 600)")
    group.addoption("--tcab-strict", dest="tcab_strict", action="store_true",
                    help="fail instead of skipping: missing proofs, verdicts left for the reviewer, no browser")
    group.addoption(WASM_TIMEOUT_OPTION, dest="tcab_wasm_timeout", type=float, default=60.0, metavar="SECONDS",
                    help="wall-clock bound of each performance case, beside its fuel budget (default 60)")
    group.addoption(WASM_CACHE_OPTION, dest="tcab_wasm_cache", default=".tcab/wasm-cache", metavar="DIR",
                    help="where compiled wasm modules are kept between sessions (default .tcab/wasm-cache)")
    group.addoption("--tcab-chromium", dest="tcab_chromium", metavar="PATH",
                    help="the Chromium to drive builds with (else TCAB_CHROMIUM, Playwright's, /usr/bin/chromium)")
    group.addoption(VIEWPORT_OPTION, dest="tcab_viewport", type=parse_viewport,
                    metavar="WxH", help="viewport of checks and their baselines, in logical pixels (default 1280x720)")
    group.addoption(MAX_DIFF_OPTION, dest="tcab_max_diff", type=parse_ratio, default=None, metavar="RATIO",
                    help="fail a check whose share of differing pixels is above RATIO (0 to 1; default: record only)")
    group.addoption(DRIVER_TIMEOUT_OPTION, dest="tcab_driver_timeout", type=float, default=60.0, metavar="SECONDS",
                    help="fail a validation driver still running after SECONDS (default 60)")


def pytest_configure(config: pytest.Config) -> None:
    root = configured_root(config)
    run_dir = config.getoption("tcab_run")
    if run_dir is not None:
        if root is None:
            raise pytest.UsageError(f"{RUN_OPTION} needs {SUITE_OPTION}=SUITE: the suite that holds the case")
        if not Path(run_dir).is_dir():
            raise pytest.UsageError(f"{RUN_OPTION}: {run_dir} is not a directory")
    if root is not None and not root.is_dir():
        raise pytest.UsageError(f"{SUITE_OPTION}: {root} is not a directory")
    if run_dir is not None or config.getoption("tcab_reference"):
        from pytest_tcab.results import ResultsRecorder
        from pytest_tcab.results import results_key

        out = Path(config.getoption("tcab_out") or ".tcab/results").resolve()
        recorder = ResultsRecorder(config, out)
        config.stash[results_key] = recorder
        config.pluginmanager.register(recorder, "tcab-results")
    # Given a suite and no paths, collect the suite (or the run) alone, not the testpaths.
    if root is not None and config.args_source != pytest.Config.ArgsSource.ARGS:
        config.args = [str(Path(run_dir).resolve()) if run_dir is not None else str(root)]
    if config.getoption("tcab_seed") is not None:
        # Seeding collects the one file whose seed item writes DIR, whatever paths were given.
        target = configure_seed(config, root)
        config.stash[seed_key] = target
        config.args = [str(target.path)]
        config.pluginmanager.register(seeding, "tcab-seed")  # its terminal summary


def pytest_unconfigure(config: pytest.Config) -> None:
    from pytest_tcab.results import results_key

    recorder = config.stash.get(results_key, None)
    if recorder is not None:
        config.pluginmanager.unregister(recorder)


@pytest.hookimpl(tryfirst=True)
def pytest_collect_directory(path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    run_dir = parent.config.getoption("tcab_run")
    if run_dir is not None and path.resolve() == Path(run_dir).resolve():
        from pytest_tcab.run import RunDirectory

        return RunDirectory.from_parent(parent, path=path)
    return None


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if parent.config.getoption("tcab_run") is not None:
        return None  # run mode collects the run directory alone
    if file_path.name == MANIFEST_FILE and catalog_type(file_path)[0] is not None:
        return ManifestFile.from_parent(parent, path=file_path)
    if file_path.name == CONFIG_FILE:
        return SuiteConfigFile.from_parent(parent, path=file_path)
    return collect_definition_file(file_path, parent)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Experimental cases are hidden unless the deployment opts in: report them as deselected."""
    if experimental_allowed(config):
        return
    hidden = [item for item in items if getattr(item, "experimental", False)]
    if hidden:
        config.hook.pytest_deselected(items=hidden)
        items[:] = [item for item in items if not getattr(item, "experimental", False)]
