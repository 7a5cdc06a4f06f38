"""Which of a session's folders are runs: those `--tcab-run` names and those given as pytest paths.

Read in every session (the plugin's configure and collect hooks ask whether this is run mode),
so it is apart from `run.collect` and imports nothing of run mode: the run machinery is imported
only when a run is asked for.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import pytest

RUN_FILE = Path(".tcab/run.toml")
"""What makes a folder a run: the file naming its case and who produced it."""


@dataclass(frozen=True)
class GivenRun:
    """A run folder of the session, and the folder of runs it was found in, if any."""

    folder: Path
    """Resolved."""
    group: Path | None = None


# -- which folders are runs -------------------------------------------------------------------

_given_key = pytest.StashKey[tuple[GivenRun, ...]]()
_missing_key = pytest.StashKey[tuple[Path, ...]]()


def run_folders(config: pytest.Config) -> tuple[GivenRun, ...]:
    """The session's run folders, in the order given, each once: `--tcab-run`'s, then the paths'."""
    if _given_key not in config.stash:
        base = config.invocation_params.dir
        positional = config.args if config.args_source == pytest.Config.ArgsSource.ARGS else []
        given = [*(found for value in config.getoption("tcab_run") or () for found in _runs_named(base / value)),
                 *runs_among(positional, base)]
        seen: dict[Path, GivenRun] = {}
        for run in given:
            seen.setdefault(run.folder, run)
        config.stash[_given_key] = tuple(seen.values())
        config.stash[_missing_key] = tuple(Path(os.path.abspath(base / value)) for value in config.getoption("tcab_run") or ()
                                           if not (base / value).is_dir())
    return config.stash[_given_key]


def missing_folders(config: pytest.Config) -> tuple[Path, ...]:
    """`--tcab-run` folders that do not exist: runs that cannot be graded, reported by the sweep."""
    run_folders(config)
    return config.stash[_missing_key]


def is_run_mode(config: pytest.Config) -> bool:
    return bool(run_folders(config) or missing_folders(config))


def runs_among(args: Iterable[str], base: Path) -> list[GivenRun]:
    """The runs among pytest's path arguments: a run folder, anything inside one (its
    `.tcab/run.toml`, a node id under it, a file of its tree), or a folder of runs (its children
    that are runs). A path inside a run is that run: pytest is never let into a produced tree."""
    found: list[GivenRun] = []
    for arg in args:
        if arg.startswith("-"):
            continue
        path = Path(os.path.abspath(base / arg.split("::", 1)[0]))
        enclosing = next((folder for folder in (path, *path.parents) if (folder / RUN_FILE).is_file()), None)
        if enclosing is not None:
            found += _runs_named(enclosing)
        elif path.is_dir() and children_runs(path):
            found += _runs_named(path)
    return found


def is_run_path(arg: str, base: Path) -> bool:
    """Whether a path argument is, or lies inside, a run or a folder of runs: pytest must load no
    conftest.py for it."""
    return bool(runs_among([arg], base))


def _runs_named(path: Path) -> list[GivenRun]:
    """`path` when it is a run (it has `.tcab/run.toml`, or no subfolder has one), else its
    subfolders that are runs, in name order."""
    folder = Path(os.path.realpath(path))
    if not folder.is_dir() or (folder / RUN_FILE).is_file():
        return [GivenRun(folder)] if folder.is_dir() else []
    children = children_runs(folder)
    return [GivenRun(child, folder) for child in children] or [GivenRun(folder)]


def children_runs(folder: Path) -> list[Path]:
    try:
        return sorted(child for child in folder.iterdir() if child.is_dir() and (child / RUN_FILE).is_file())
    except OSError:
        return []
