"""The pytest entry point: options, configuration and which paths become tcab collectors.

Loaded in every session of an environment that installs the plugin, so it imports only the
option definitions; models, collectors and run machinery are imported when they are needed.
"""

from __future__ import annotations

from collections.abc import Generator
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any

import pytest

from pytest_tcab.layout import CATALOG_PATTERN
from pytest_tcab.layout import DEFINITION_PATTERN
from pytest_tcab.layout import DRAFTS_FOLDER
from pytest_tcab.layout import NEVER_HELD
from pytest_tcab.layout import LayoutFiles
from pytest_tcab.layout import misplaced
from pytest_tcab.layout import suite_directory
from pytest_tcab.layout import walk
from pytest_tcab.options import COMPARE_OPTION
from pytest_tcab.options import RESUME_OPTION
from pytest_tcab.options import RUN_OPTION
from pytest_tcab.options import SCHEMAS_OPTION
from pytest_tcab.options import SUITE_OPTION
from pytest_tcab.options import WASM_CACHE_OPTION  # noqa: F401 - re-exported for tests and users
from pytest_tcab.options import WASM_TIMEOUT_OPTION  # noqa: F401 - re-exported for tests and users
from pytest_tcab.options import add_options
from pytest_tcab.options import apply_ini
from pytest_tcab.options import from_ini
from pytest_tcab.runs import is_run_mode
from pytest_tcab.runs import is_run_path
from pytest_tcab.runs import missing_folders
from pytest_tcab.runs import run_folders
from pytest_tcab.session import configured_layout_key
from pytest_tcab.session import configured_root
from pytest_tcab.session import end_session
from pytest_tcab.session import experimental_allowed

if TYPE_CHECKING:
    from pytest_tcab.run.report.results import ResultsRecorder

# Feature modules that are plugins of their own (hooks and fixtures beside the code they serve).
pytest_plugins = ["pytest_tcab.failures", "pytest_tcab.github", "pytest_tcab.outcomes", "pytest_tcab.selection", "pytest_tcab.run.report.junit"]

BROWSER_PLUGIN = "pytest_tcab.run.browser.item"
"""The browser items' fixtures: registered in the sessions that drive pages (run, reference, capture
and seed modes) when they are configured, so a session of anything else never imports run mode."""


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    from pytest_tcab.run import hookspec

    pluginmanager.add_hookspecs(hookspec)


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config) -> None:
    """pytest imports the conftest.py of each path it is given, before any collector: a run's
    paths are kept from it, so no conftest.py of a produced tree ever runs in the grader."""
    namespace = early_config.known_args_namespace
    base = early_config.invocation_params.dir
    namespace.file_or_dir = [arg for arg in namespace.file_or_dir or () if not is_run_path(str(arg), base)]


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    apply_ini(config)
    root = configured_root(config)
    run_mode = is_run_mode(config)
    if run_mode and root is None:
        raise pytest.UsageError(f"{RUN_OPTION} (or a run folder given as a path) needs {SUITE_OPTION}=SUITE: "
                                "the suite that holds the cases")
    given: list[str] = config.getoption("tcab_run") or []
    if len(given) == 1 and missing_folders(config):  # one run: nothing else to grade
        raise pytest.UsageError(f"{RUN_OPTION}: {given[0]} is not a directory")
    if run_mode:
        _refuse_run_configuration(config)
        if len(run_folders(config)) > 1:  # a bad run fails alone; the others are graded
            config.option.continue_on_collection_errors = True
    if root is not None and not root.is_dir():
        raise pytest.UsageError(f"{SUITE_OPTION}: {root} is not a directory")
    if run_mode or config.getoption("tcab_merge"):
        _register_review(config)
    if config.getoption("tcab_merge"):
        from pytest_tcab.run.report.merge import Merge

        config.pluginmanager.register(Merge(config, _out_dir(config)), "tcab-merge")
        return  # the session merges shards' results: it collects and runs nothing
    if config.getoption("tcab_review"):
        from pytest_tcab.review.page.session import ReviewSession

        config.pluginmanager.register(ReviewSession(config, root), "tcab-review-page")
        return  # the session serves the review page: it collects and runs nothing
    if config.getoption("tcab_schemas"):
        if root is None:
            raise pytest.UsageError(f"{SCHEMAS_OPTION} needs {SUITE_OPTION}=SUITE: the suite to write them beside")
        from pytest_tcab.schemas.editors import SchemaWriter

        config.pluginmanager.register(SchemaWriter(root), "tcab-schemas")
        return  # the session writes the editor schemas: it collects and runs nothing
    if root is not None:
        config.stash[configured_layout_key] = _suite_layout(root)
    if config.getoption("tcab_matrix"):
        from pytest_tcab import matrix

        matrix.configure(config)
    elif run_mode or config.getoption("tcab_reference"):
        from pytest_tcab.run.report.results import ResultsRecorder
        from pytest_tcab.run.report.results import results_key

        recorder = ResultsRecorder(config, _out_dir(config))
        config.stash[results_key] = recorder
        config.pluginmanager.register(recorder, "tcab-results")
        if run_mode:
            _register_sweep(config, recorder)
        from pytest_tcab.run.report import site

        config.pluginmanager.register(site, "tcab-site")  # each run's served site, kept for the review page
        if config.pluginmanager.hasplugin("html") and config.getoption("htmlpath", None):
            from pytest_tcab.run.report import html_extras

            config.pluginmanager.register(html_extras, "tcab-html-extras")  # run items' media in pytest-html
    if run_mode or config.getoption("tcab_reference") or config.getoption("tcab_capture_baselines") or \
            config.getoption("tcab_seed") is not None:
        _register_browser(config)
    if run_mode or config.getoption("tcab_reference") or config.getoption("tcab_capture_baselines"):
        from pytest_tcab.run.sandbox.snapshot import register

        register(config)  # checks at the end that no build changed the suite
    if config.getoption("tcab_capture_baselines"):
        from pytest_tcab.run.judge.baselines import BaselineRecorder

        config.pluginmanager.register(BaselineRecorder(config), "tcab-baselines")
    _choose_args(config, root, run_mode)
    if config.getoption("tcab_seed") is not None:
        from pytest_tcab import seeding

        # Seeding collects the one file whose seed item writes DIR, whatever paths were given.
        target = seeding.configure_seed(config, root)
        config.stash[seeding.seed_key] = target
        config.args = [str(target.path)]
        config.pluginmanager.register(seeding, "tcab-seed")  # its terminal summary


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object | None:
    """pytest-xdist's controller: a run's items go to one worker, so each run is built once."""
    from pytest_tcab.run.scheduling import scheduler_for

    return scheduler_for(config, log)


def _register_browser(config: pytest.Config) -> None:
    """The browser fixtures, as a plugin (its fixtures rank below every conftest.py's overrides)."""
    import importlib

    if not config.pluginmanager.has_plugin(BROWSER_PLUGIN):
        config.pluginmanager.register(importlib.import_module(BROWSER_PLUGIN), BROWSER_PLUGIN)


def _register_review(config: pytest.Config) -> None:
    """The review wing: folds the operator's reviews into each run's results (and the gate's items)."""
    from pytest_tcab.errors import TcabError
    from pytest_tcab.review.plugin import PLUGIN_NAME
    from pytest_tcab.review.plugin import ReviewPlugin
    from pytest_tcab.review.store import reviewer_name

    try:
        if config.getoption("tcab_reviewer"):
            reviewer_name(config)  # a name that cannot be a file name is a usage error at once
    except TcabError as exc:
        raise pytest.UsageError(str(exc)) from None
    config.pluginmanager.register(ReviewPlugin(config), PLUGIN_NAME)


def _suite_layout(root: Path) -> LayoutFiles:
    """What the configured suite holds; a suite without a single case is a usage error, not an empty pass."""
    layout = walk(root)
    if not layout.holds_a_case:
        skipped = ", ".join(f"{name}/" for name in sorted(NEVER_HELD | {DRAFTS_FOLDER}))
        raise pytest.UsageError(
            f"{SUITE_OPTION}: {root} holds no test case: looked for catalog manifests ({CATALOG_PATTERN}) and "
            f"test-suite definitions ({DEFINITION_PATTERN}) at any depth under it, past dot-folders, run folders, "
            f"folders with a tcab.toml of their own (each its own suite root) and {skipped}")
    return layout


def _out_dir(config: pytest.Config) -> Path:
    return Path(config.getoption("tcab_out") or ".tcab/results").resolve()


def _refuse_run_configuration(config: pytest.Config) -> None:
    """A produced run must not configure the session that grades it (its own pytest.ini, tox.ini
    or pyproject.toml, found because a run folder was the only path given)."""
    inipath = config.inipath
    if inipath is None:
        return
    for run in run_folders(config):
        if inipath.resolve().is_relative_to(run.folder):
            raise pytest.UsageError(
                f"pytest took its configuration from {inipath}, inside the run {run.folder}: a produced run must "
                "not configure the session that grades it; give -c (an ini file of your own) or --rootdir, "
                f"or name the run with {RUN_OPTION}")


def _register_sweep(config: pytest.Config, recorder: ResultsRecorder) -> None:
    """The sweep's writer, with the earlier sweep `--tcab-compare` or `--tcab-resume` names (read now:
    one that cannot be read is a usage error before anything is built)."""
    from pytest_tcab.run.collect import shard_plan
    from pytest_tcab.run.collect import shard_record
    from pytest_tcab.run.collect import skip_graded
    from pytest_tcab.run.report.attempts import remember_earlier
    from pytest_tcab.run.report.carried import kept
    from pytest_tcab.run.report.compare import SweepUnreadable
    from pytest_tcab.run.report.compare import read_sweep_rows
    from pytest_tcab.run.report.journal import resumable_rows
    from pytest_tcab.run.report.sweep import GRADED
    from pytest_tcab.run.report.sweep_files import SweepWriter
    from pytest_tcab.shards import PlanUnreadable

    previous = resumed = None
    try:
        shard_plan(config)  # read now: a plan that cannot be read is a usage error before anything is built
        if config.getoption("tcab_compare"):
            path = Path(config.getoption("tcab_compare"))
            previous = (str(config.getoption("tcab_compare")), read_sweep_rows(path, COMPARE_OPTION))
        if config.getoption("tcab_resume"):
            path = Path(config.getoption("tcab_resume"))
            earlier = resumable_rows(path, RESUME_OPTION)
            remember_earlier(config, earlier)  # the attempts a run graded again appends to
            graded = [row for row in earlier if row["status"] == GRADED]
            resumed = kept(path if path.is_dir() else path.parent, graded)  # a run without its results.json: again
            resumed.check_shard(shard_record(config))
            skip_graded(config, list(resumed.runs))
    except (SweepUnreadable, PlanUnreadable) as exc:
        raise pytest.UsageError(str(exc)) from None
    live = len(run_folders(config)) + len(missing_folders(config)) > 1 or resumed is not None
    writer = SweepWriter(config, _out_dir(config), recorder, previous=previous, resumed=resumed, live=live)
    config.pluginmanager.register(writer, "tcab-sweep")


def _choose_args(config: pytest.Config, root: Path | None, run_mode: bool) -> None:
    """What to collect when no paths are given: the runs (a tournament is collected under its
    first run), or the suite alone, not the testpaths.

    A suite named only in the ini file is a default, not a command: the project's own paths
    (given, or its `testpaths`) stay, and the suite is added when they do not already hold it.
    """
    if root is None or config.args_source == pytest.Config.ArgsSource.ARGS:
        return
    if run_mode:
        config.args = [str(run.folder) for run in run_folders(config)]
    elif not from_ini(config, "tcab_suite"):
        config.args = [str(root)]
    elif not any(_is_under(root, Path(arg).resolve()) for arg in config.args):
        config.args = [*config.args, str(root)]


def _is_under(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def pytest_unconfigure(config: pytest.Config) -> None:
    end_session(config)
    for name in ("tcab-results", "tcab-sweep", "tcab-html-extras", "tcab-baselines", "tcab-snapshot", "tcab-merge",
                 "tcab-matrix", "tcab-review"):
        plugin = config.pluginmanager.get_plugin(name)
        if plugin is not None:
            config.pluginmanager.unregister(plugin)


@pytest.hookimpl(tryfirst=True)
def pytest_collect_directory(path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if is_run_mode(parent.config):
        from pytest_tcab.run.collect import collector_for

        return collector_for(path, parent)  # None: pytest's own, on the way to a run
    # Author mode: a suite's folders yield only what its layout can hold.
    return suite_directory(path, parent, configured_root(parent.config))


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if is_run_mode(parent.config):
        # Run mode collects the runs alone; a run without run.toml lives under its case's manifest.
        from pytest_tcab.run.collect import RunToml
        from pytest_tcab.run.collect import run_anchor

        run = run_anchor(parent.config, file_path) if file_path.name.endswith(".toml") else None
        return RunToml.from_parent(parent, path=file_path, run=run) if run is not None else None
    if file_path.suffix != ".toml":
        return None  # every suite file is TOML: anything else costs nothing
    from pytest_tcab.author import ManifestFile
    from pytest_tcab.author import MisplacedFile
    from pytest_tcab.author import SuiteConfigFile
    from pytest_tcab.author import errata_collector
    from pytest_tcab.definitions import collect_definition_file
    from pytest_tcab.resolve.manifest import ERRATA_FILE
    from pytest_tcab.resolve.manifest import catalog_type

    wrongly_placed = misplaced(file_path, parent)
    if wrongly_placed is not None:
        return MisplacedFile.from_parent(parent, path=file_path, misplaced=wrongly_placed)
    if file_path.name == "test-case.toml" and catalog_type(file_path)[0] is not None:
        return ManifestFile.from_parent(parent, path=file_path)
    if file_path.name == "tcab.toml":
        return SuiteConfigFile.from_parent(parent, path=file_path)
    if file_path.name == ERRATA_FILE:  # its manifest's child, or named on the command line (an id under it)
        return errata_collector(file_path, parent)
    return collect_definition_file(file_path, parent)


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Generator[None, pytest.CollectReport, pytest.CollectReport]:
    """A run that could not be collected says which run it is: the sweep makes it a row."""
    report = yield
    if report.failed and is_run_mode(collector.config):
        from pytest_tcab.run.collect import run_of

        found = run_of(collector)
        if found is not None:
            report.tcab_run = found  # type: ignore[attr-defined]
    return report


def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    """The last item of a case file lets go of the case (`CaseFile.release_case`)."""
    case_file = _case_file(item)
    if case_file is not None and (nextitem is None or _case_file(nextitem) is not case_file):
        case_file.release_case()


def _case_file(item: pytest.Item) -> Any:
    """The nearest collector above `item` that holds a case (its `errata.toml` is a collector of its own)."""
    node = item.parent
    while node is not None and not hasattr(node, "release_case"):
        node = node.parent
    return node


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Experimental cases are hidden unless the deployment opts in: report them as deselected."""
    if experimental_allowed(config):
        return
    hidden = [item for item in items if getattr(item, "experimental", False)]
    if hidden:
        config.hook.pytest_deselected(items=hidden)
        items[:] = [item for item in items if not getattr(item, "experimental", False)]
