"""How a session finds its runs: the collectors of `--tcab-run` and of reference implementations.

`--tcab-run=DIR` collects DIR as a `RunDirectory`; `--tcab-reference` adds a `ReferenceRun` per
variant with a reference implementation under its manifest. Several runs given together are the
controllers of one adversarial tournament.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_tcab.case import CaseVersion
from pytest_tcab.case import Variant
from pytest_tcab.errors import TcabError
from pytest_tcab.resolve.common import indefinite
from pytest_tcab.run.context import RunContext
from pytest_tcab.run.families import run_items
from pytest_tcab.run.spec import RUN_FILE
from pytest_tcab.run.spec import RunError
from pytest_tcab.run.spec import find_case
from pytest_tcab.run.spec import read_run_spec
from pytest_tcab.session import experimental_allowed
from pytest_tcab.suite import Suite


class RunDirectory(pytest.Directory):
    """`--tcab-run=DIR`: DIR's produced implementation, as the case it names.

    Several runs (`--tcab-run` given again, or DIR a folder whose subfolders are runs) are
    collected here, under the first: they are the controllers of one adversarial tournament.
    The items live under `DIR/.tcab/run.toml` (a file an IDE opens and pytest selects by id),
    or under the case's manifest when DIR has none (`--tcab-case` names the case, or DIR is a
    folder of runs).
    """

    def collect(self) -> Iterator[pytest.Collector]:
        run = session_run(self.config)
        if isinstance(run, TcabError):
            raise self.CollectError(str(run))
        run_file = self.path / RUN_FILE
        if run_file.is_file():
            yield RunSettings.from_parent(self, path=run_file.parent, nodeid=fs_nodeid(self.config, run_file.parent))
        else:
            yield RunToml.from_parent(self, path=run.case.manifest_path,
                                      nodeid=fs_nodeid(self.config, run.case.manifest_path))


class RunSettings(pytest.Directory):
    """`DIR/.tcab/`: the folder of the run file, on the way to it."""

    def collect(self) -> Iterator[pytest.Collector]:
        yield RunToml.from_parent(self, path=self.path / RUN_FILE.name,
                                  nodeid=fs_nodeid(self.config, self.path / RUN_FILE.name))


class RunToml(pytest.File):
    """The file a run's items live under: `DIR/.tcab/run.toml`, or the case's manifest."""

    def collect(self) -> Iterator[pytest.Item]:
        run = session_run(self.config)
        if isinstance(run, TcabError):
            raise self.CollectError(str(run))
        yield from run_items(self, run)


_session_run_key = pytest.StashKey["RunContext | TcabError"]()


def session_run(config: pytest.Config) -> RunContext | TcabError:
    """The run (or tournament) `--tcab-run` names, resolved once per session, or why it cannot be."""
    if _session_run_key not in config.stash:
        config.stash[_session_run_key] = _resolve_runs(config)
    return config.stash[_session_run_key]


def _resolve_runs(config: pytest.Config) -> RunContext | TcabError:
    from pytest_tcab.session import configured_root
    from pytest_tcab.session import run_dirs
    from pytest_tcab.session import suite_for

    given = [path.resolve() for path in run_dirs(config)]
    # The run names its case in the configured suite, wherever the run dir itself lives.
    suite = suite_for(config, configured_root(config) or given[0] / RUN_FILE)
    folders = [found for path in given for found in runs_in(path)]
    try:
        runs = [_run(config, suite, folder) for folder in folders]
        if len(runs) == 1:
            return runs[0]
        # A folder of runs is named by the folder; runs given one by one, by their case.
        label = given[0].name if len(given) == 1 else f"{runs[0].case.slug}-tournament"
        return tournament_context(config, runs, label)
    except TcabError as exc:
        return exc


def _run(config: pytest.Config, suite: Suite, folder: Path) -> RunContext:
    spec = read_run_spec(folder, config.getoption("tcab_case"))
    case, variant = find_case(suite, spec, allow_experimental=experimental_allowed(config))
    return RunContext(config, case, variant, folder, spec.engine or "none", label=folder.name)


def run_anchor(config: pytest.Config, path: Path) -> bool:
    """Whether `path` is the manifest a run without run.toml hangs its items under (re-run by id)."""
    from pytest_tcab.session import run_dirs

    if (run_dirs(config)[0] / RUN_FILE).is_file():
        return False
    run = session_run(config)
    return not isinstance(run, TcabError) and run.case.manifest_path.resolve() == path.resolve()


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


def runs_in(path: Path) -> list[Path]:
    """`path` when it is a run (it has `.tcab/run.toml`, or no subfolder has one), else its
    subfolders that are runs, in name order."""
    if (path / RUN_FILE).is_file():
        return [path]
    found = sorted(child for child in path.iterdir() if child.is_dir() and (child / RUN_FILE).is_file())
    return found or [path]


def tournament_context(config: pytest.Config, runs: list[RunContext], label: str) -> RunContext:
    """The context of several runs played against each other: they must be runs of one
    adversarial case (the same version and variant)."""
    first = runs[0]
    for other in runs[1:]:
        if (other.case.manifest_path, other.variant.slug) != (first.case.manifest_path, first.variant.slug):
            raise RunError(f"runs {first.label!r} and {other.label!r} name different cases "
                           f"({first.case.slug}@{first.case.version} and {other.case.slug}@{other.case.version}); "
                           "runs given together must be runs of one adversarial case")
    if first.case.adversarial is None:
        raise RunError(f"{len(runs)} runs were given ({', '.join(run.label for run in runs)}), but "
                       f"{first.case.slug!r} is {indefinite(first.case.case_type)} case; only the runs of an adversarial case "
                       "are played against each other: give one --tcab-run per session")
    return RunContext(config, first.case, first.variant, first.source.parent, first.engine, label=label,
                      entrants=tuple(runs))


_reference_runs_key = pytest.StashKey[dict[tuple[Path, str], RunContext]]()


def reference_context(config: pytest.Config, case: CaseVersion, variant: Variant) -> RunContext:
    """The run of a variant's reference implementation, one per session.

    Reference mode and baseline capture share it, so each reference implementation is built once.
    """
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
        yield from run_items(self, self.run)

