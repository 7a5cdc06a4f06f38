"""How a session finds its runs: which run folders it has, what each names, and their collectors.

The one way in. A session's run folders (`pytest_tcab.runs.run_folders`) are those `--tcab-run`
names (repeated; a folder of runs names its children that hold `.tcab/run.toml`) and those given
as pytest paths (a run folder, its `.tcab/run.toml` or an id under it, a folder of runs). Each is resolved once
(`session_runs`) against the configured suite into a `RunContext` of its own, or into why it
cannot be graded: that run's collection error, while the others are graded. Runs of one
adversarial case (its version and variant) given together are its tournament, collected under
the first of them. `--tcab-reference` adds a `ReferenceRun` per variant with a reference
implementation under its manifest.

Run folders are never `pytest.Directory` collectors, and no path inside one is handed to
pytest's start-up: pytest imports the `conftest.py` of every directory it collects (and of every
path it is given), and a produced tree's `conftest.py` must never run in the grader.

This module is imported only in run mode (`pytest_tcab.runs` says whether a session is), and
imports the run machinery only where it resolves runs.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any

import pytest

from pytest_tcab.errors import TcabError
from pytest_tcab.runs import RUN_FILE
from pytest_tcab.runs import GivenRun
from pytest_tcab.runs import children_runs
from pytest_tcab.runs import run_folders
from pytest_tcab.shards import Plan

if TYPE_CHECKING:
    from pytest_tcab.case import CaseVersion
    from pytest_tcab.case import Variant
    from pytest_tcab.run.context import RunContext
    from pytest_tcab.suite import Suite

# -- what each run folder names ---------------------------------------------------------------

@dataclass
class SessionRuns:
    """Every run folder of the session and what it resolved to: its run (or the tournament it
    leads), why it cannot be graded, or None: a tournament's entrant collected under the first, or a
    run `--tcab-resume` leaves to the earlier sweep that graded it."""

    entries: dict[Path, RunContext | TcabError | None]
    labels: dict[Path, str]
    """Each run folder's label: its name in results.json, sweep.json and `--tcab-out/<run>/`."""

    def anchored(self) -> Iterator[tuple[Path, RunContext]]:
        for folder, entry in self.entries.items():
            if entry is not None and not isinstance(entry, TcabError):
                yield folder, entry


_session_runs_key = pytest.StashKey[SessionRuns]()
_graded_before_key = pytest.StashKey[frozenset[str]]()


def skip_graded(config: pytest.Config, labels: Iterable[str]) -> None:
    """`--tcab-resume`: the runs (by label) an earlier sweep graded are not collected again."""
    config.stash[_graded_before_key] = frozenset(labels)


_plan_key = pytest.StashKey["Plan | None"]()


def shard_plan(config: pytest.Config) -> Plan | None:
    """How `--tcab-shard` deals the session's runs, or None when the session is no shard: the plan
    a resumed shard's folder recorded (runs dealt at its start stay dealt), else a duration plan
    of `--tcab-shard-plan`, else by hash. Raises PlanUnreadable (a usage error at configure)."""
    if _plan_key not in config.stash:
        config.stash[_plan_key] = _plan(config)
    return config.stash[_plan_key]


def shard_record(config: pytest.Config) -> dict[str, Any] | None:
    """`shard` of every results.json and sweep.json a shard writes: its index, the count, the plan
    (`hash` or a duration plan's digest) and the digest of the suite's case files."""
    from pytest_tcab.session import configured_root
    from pytest_tcab.shards import suite_digest

    shard, plan = config.getoption("tcab_shard", None), shard_plan(config)
    if shard is None or plan is None:
        return None
    if _suite_digest_key not in config.stash:
        root = configured_root(config)
        config.stash[_suite_digest_key] = suite_digest(root) if root is not None else None
    return {**plan.shard_of(shard[0]), "suite": config.stash[_suite_digest_key]}


_suite_digest_key = pytest.StashKey["str | None"]()


def _plan(config: pytest.Config) -> Plan | None:
    from pytest_tcab.runs import missing_folders
    from pytest_tcab.shards import PlanUnreadable
    from pytest_tcab.shards import balanced
    from pytest_tcab.shards import read_plan

    shard = config.getoption("tcab_shard", None)
    if shard is None:
        return None
    count = shard[1]
    resumed = config.getoption("tcab_resume", None)
    if resumed:
        folder = Path(resumed) if Path(resumed).is_dir() else Path(resumed).parent
        recorded = read_plan(folder)
        if recorded is not None:
            if recorded.count != count:
                raise PlanUnreadable(f"--tcab-resume: {folder} was dealt into {recorded.count} shards "
                                     f"(shard-plan.json), this session into {count}: resume it with --tcab-shard=I/"
                                     f"{recorded.count}")
            return recorded
    previous = config.getoption("tcab_shard_plan", None)
    if not previous:
        return Plan(count)
    given = run_folders(config)
    labels = unique_labels([run.folder for run in given])
    cases: dict[str, str | None] = {labels[run.folder]: _named_case(config, run.folder) for run in given}
    cases.update({folder.name: None for folder in missing_folders(config)})
    return balanced(cases, count, Path(previous))


def _named_case(config: pytest.Config, folder: Path) -> str | None:
    """The case a run's run.toml names (None when it names none it can be read for)."""
    from pytest_tcab.run.spec import read_run_spec

    try:
        spec, _ = read_run_spec(folder / RUN_FILE, config.getoption("tcab_case"))
    except TcabError:
        return None
    return spec.case


def session_runs(config: pytest.Config) -> SessionRuns:
    """The session's runs, resolved once (per xdist worker)."""
    if _session_runs_key not in config.stash:
        config.stash[_session_runs_key] = _resolve(config)
    return config.stash[_session_runs_key]


def run_suite(config: pytest.Config, path: Path) -> Suite:
    """The suite a run names its case in: the configured one, wherever the run itself lives."""
    from pytest_tcab.session import configured_root
    from pytest_tcab.session import suite_for

    return suite_for(config, configured_root(config) or path)


def _resolve(config: pytest.Config) -> SessionRuns:
    given = run_folders(config)
    labels = unique_labels([run.folder for run in given])
    graded_before = config.stash.get(_graded_before_key, frozenset())
    resolved: dict[Path, RunContext | TcabError | None] = {}
    for run in given:
        try:
            resolved[run.folder] = _run(config, run.folder, labels[run.folder])
        except TcabError as exc:
            resolved[run.folder] = exc
    _play_together(config, given, resolved)
    shard = config.getoption("tcab_shard", None)
    plan = shard_plan(config)
    for folder, entry in resolved.items():
        label = entry.label if entry is not None and not isinstance(entry, TcabError) else labels[folder]
        dealt = labels[folder] if plan is not None and plan.shards is not None else label  # a plan deals folders
        if label in graded_before or (shard is not None and plan is not None and plan.index_of(dealt) != shard[0]):
            resolved[folder] = None  # resumed (graded by the earlier sweep), or another shard's
    from pytest_tcab.run.sandbox.sandbox import hide_from_builds

    hide_from_builds(config, [run.folder for run in given])
    return SessionRuns(resolved, labels)


def _run(config: pytest.Config, folder: Path, label: str) -> RunContext:
    from pytest_tcab.run.context import RunContext
    from pytest_tcab.run.spec import find_case
    from pytest_tcab.run.spec import read_run_spec
    from pytest_tcab.session import experimental_allowed

    spec, producer = read_run_spec(folder / RUN_FILE, config.getoption("tcab_case"))
    suite = run_suite(config, folder / RUN_FILE)
    case, variant = find_case(suite, spec, allow_experimental=experimental_allowed(config))
    return RunContext(config, case, variant, folder, spec.engine or "none", label=label, producer=producer)


def _play_together(config: pytest.Config, given: tuple[GivenRun, ...],
                   resolved: dict[Path, RunContext | TcabError | None]) -> None:
    """Runs of one adversarial case become its tournament, under the first of them."""
    from pytest_tcab.run.context import RunContext

    games: dict[tuple[Path, str], list[GivenRun]] = {}
    for run in given:
        entry = resolved[run.folder]
        if isinstance(entry, RunContext) and entry.case.adversarial is not None:
            games.setdefault((entry.case.manifest_path, entry.variant.slug), []).append(run)
    for members in games.values():
        if len(members) < 2:
            continue
        entrants = [resolved[run.folder] for run in members]
        groups = {run.group for run in members}
        group = next(iter(groups)) if len(groups) == 1 else None
        # A folder of runs that holds this tournament alone is named by the folder; others, by the case.
        alone = group is not None and all(run.group != group or run in members for run in given)
        first = entrants[0]
        assert isinstance(first, RunContext)
        label = group.name if alone and group is not None else f"{first.case.slug}-tournament"
        resolved[members[0].folder] = tournament_context(config, [e for e in entrants if isinstance(e, RunContext)],
                                                         label)
        for run in members[1:]:
            resolved[run.folder] = None


def unique_labels(folders: list[Path]) -> dict[Path, str]:
    """Each run folder's name, led by as many parent folders as it takes to tell it from the others."""
    depth = dict.fromkeys(folders, 1)
    while True:
        labels = {folder: "-".join(folder.parts[-depth[folder]:]) for folder in folders}
        taken = Counter(labels.values())
        clashing = [folder for folder in folders if taken[labels[folder]] > 1 and depth[folder] < len(folder.parts)]
        if not clashing:
            return labels
        for folder in clashing:
            depth[folder] += 1


def tournament_context(config: pytest.Config, runs: list[RunContext], label: str) -> RunContext:
    """The context of several runs of one adversarial case played against each other."""
    from pytest_tcab.run.context import RunContext
    from pytest_tcab.run.spec import Producer

    first = runs[0]
    assert all((run.case.manifest_path, run.variant.slug) == (first.case.manifest_path, first.variant.slug)
               for run in runs), "a tournament's runs are of one case"
    return RunContext(config, first.case, first.variant, first.source.parent, first.engine, label=label,
                      entrants=tuple(runs), producer=Producer.common([run.producer for run in runs]))


# -- the collectors -----------------------------------------------------------------------------


class RunDirectory(pytest.Collector):
    """A run folder: its produced implementation, as the case it names.

    The items live under `DIR/.tcab/run.toml` (a file an IDE opens and pytest selects by id), or
    under the case's manifest when DIR has none (`--tcab-case` names the case). A tournament's
    items live under its first run; the other runs' folders hold none. Not a `pytest.Directory`:
    pytest would import a `conftest.py` the produced tree holds.
    """

    def collect(self) -> Iterator[pytest.Collector]:
        entry = session_runs(self.config).entries.get(Path(os.path.realpath(self.path)))
        if isinstance(entry, TcabError):
            raise self.CollectError(str(entry))
        if entry is None:
            return
        run_file = self.path / RUN_FILE
        if run_file.is_file():
            yield RunSettings.from_parent(self, name=RUN_FILE.parent.name, path=run_file.parent,
                                          nodeid=path_nodeid(self.config, run_file.parent), run=entry)
        else:
            yield RunToml.from_parent(self, path=entry.case.manifest_path,
                                      nodeid=fs_nodeid(self.config, entry.case.manifest_path), run=entry)


class RunFolder(pytest.Collector):
    """A folder of runs given as a path: each of its runs."""

    def collect(self) -> Iterator[pytest.Collector]:
        for child in children_runs(self.path):
            yield run_directory(self, child)


class RunSettings(pytest.Collector):
    """`DIR/.tcab/`: the folder of the run file, on the way to it."""

    def __init__(self, *, run: RunContext, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.run = run

    def collect(self) -> Iterator[pytest.Collector]:
        yield RunToml.from_parent(self, path=self.path / RUN_FILE.name,
                                  nodeid=fs_nodeid(self.config, self.path / RUN_FILE.name), run=self.run)


class RunToml(pytest.File):
    """The file a run's items live under: `DIR/.tcab/run.toml`, or the case's manifest."""

    def __init__(self, *, run: RunContext, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.run = run

    def collect(self) -> Iterator[pytest.Item]:
        from pytest_tcab.run.families import run_items

        yield from run_items(self, self.run)


def run_directory(parent: pytest.Collector, path: Path) -> pytest.Collector:
    return RunDirectory.from_parent(parent, name=path.name, path=path, nodeid=path_nodeid(parent.config, path))


def collector_for(path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """The collector of a directory in run mode: a run folder's, a folder of runs', or None."""
    folder = Path(os.path.realpath(path))
    if folder in session_runs(parent.config).entries:
        return run_directory(parent, path)
    if any(run.group == folder for run in run_folders(parent.config)):
        return RunFolder.from_parent(parent, name=path.name, path=path, nodeid=path_nodeid(parent.config, path))
    return None


def run_of(collector: pytest.Collector) -> dict[str, str] | None:
    """Which run a run folder's collector stands for (its label and folder), for its collection report."""
    if not isinstance(collector, RunDirectory):
        return None
    folder = Path(os.path.realpath(collector.path))
    return {"run": session_runs(collector.config).labels.get(folder, folder.name), "source": str(folder)}


def run_anchor(config: pytest.Config, path: Path) -> RunContext | None:
    """The run without run.toml whose items hang under the manifest `path` (re-run by id), if any."""
    target = Path(os.path.realpath(path))
    for folder, run in session_runs(config).anchored():
        if not (folder / RUN_FILE).is_file() and Path(os.path.realpath(run.case.manifest_path)) == target:
            return run
    return None


def path_nodeid(config: pytest.Config, path: Path) -> str:
    """The node id pytest gives the folder `path`: rootdir-relative inside rootdir, else absolute."""
    return fs_nodeid(config, path) or Path(os.path.relpath(path.resolve(), config.rootpath)).as_posix()


def fs_nodeid(config: pytest.Config, path: Path) -> str | None:
    """A node id for `path`: pytest's (rootdir-relative) inside rootdir, the absolute path outside.

    pytest names a path outside rootdir relative to the argument it was found under, an id
    that selects nothing when given back; the absolute path selects the same node from anywhere.
    """
    path = path.resolve()
    try:
        path.relative_to(config.rootpath)
    except ValueError:
        return path.as_posix()
    return None


# -- reference implementations ----------------------------------------------------------------

_reference_runs_key = pytest.StashKey[dict[tuple[Path, str], "RunContext"]]()


def reference_context(config: pytest.Config, case: CaseVersion, variant: Variant) -> RunContext:
    """The run of a variant's reference implementation, one per session.

    Reference mode and baseline capture share it, so each reference implementation is built once.
    """
    from pytest_tcab.run.context import RunContext

    runs = config.stash.setdefault(_reference_runs_key, {})
    key = (case.manifest_path, variant.slug)
    if key not in runs:
        assert variant.reference_implementation is not None, "only variants with a reference implementation"
        runs[key] = RunContext(config, case, variant, variant.reference_implementation, "none",
                               label=f"reference-{case.slug}-{case.version}-{variant.slug}", reference=True)
    return runs[key]


class ReferenceRun(pytest.Collector):
    """`reference-<variant>`: a variant's reference implementation, validated as a run.

    No brackets: pytest splits an id given on the command line at its first `[`, so only a
    leaf may carry them (see `pytest_tcab.nodeids`).
    """

    def __init__(self, *, run: RunContext, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.run = run

    def collect(self) -> Iterator[pytest.Item]:
        from pytest_tcab.run.families import run_items

        yield from run_items(self, self.run)
