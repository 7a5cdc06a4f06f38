"""A merge knows its shards: each shard's results.json says which of how many it is, dealt how, of
which suite and with which grading options; a merge lacking one names it and fails (or, with
--tcab-allow-partial, says so in everything it writes), and refuses shards that do not make one
sweep, naming the folders."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

# pytester's in-process runs drop the modules first imported inside them, and numpy, Pillow and
# Playwright cannot be imported afresh in one process: they are loaded here and kept.
import numpy  # noqa: F401
import PIL.Image  # noqa: F401
import playwright.sync_api  # noqa: F401
import pytest
from suites import write_minimal_suite

BASE = ("-p", "no:cacheprovider", "--tcab-suite=suite")
OPTIONS = {"build_memory": 4294967296, "build_disk": 4294967296, "build_timeout": 600.0, "viewport": "1280x720",
           "media": "all", "build_network": "install", "no_sandbox": False}


def write_shard(root: Path, index: int, count: int = 4, **changes: Any) -> Path:
    """The results.json shard `index` of `count` writes: one run of the demo case, its verdict passed."""
    folder = root / f"shard-{index}"
    name = f"r{index}"
    run = {"run": name, "case": "demo", "version": "v1.0.0", "variant": "a", "engine": "none",
           "source": str(root / name), "layout": "catalog", "graded_with": OPTIONS,
           "items": [{"nodeid": f"{name}/.tcab/run.toml::validate[moves]", "kind": "validate", "id": "moves",
                      "outcome": "passed", "duration_s": 1.0}]}
    data = {"tool": {"pytest-tcab": "1.0"}, "sandbox": {"sandboxed": True, "sandbox": "bwrap", "network": "install"}, "graded_with": OPTIONS,
            "shard": {"index": index, "count": count, "plan": "hash", "suite": "sha256:aa"}, "runs": [run]}
    for key, value in changes.items():
        if value is None:
            data.pop(key)
        else:
            data[key] = value
    folder.mkdir(parents=True)
    (folder / "results.json").write_text(json.dumps(data))
    return folder


@pytest.fixture
def suite(pytester: pytest.Pytester) -> Path:
    (pytester.path / "suite").mkdir()
    write_minimal_suite(pytester.path / "suite")
    return pytester.path


def merge(pytester: pytest.Pytester, *indexes: int, extra: tuple[str, ...] = ()) -> pytest.RunResult:
    return pytester.runpytest(*BASE, *(f"--tcab-merge=shard-{index}" for index in indexes), "--tcab-out=merged",
                              *extra)


def test_a_merge_missing_one_shard_of_four_names_it_and_fails(pytester: pytest.Pytester, suite: Path) -> None:
    for index in (0, 1, 3):
        write_shard(suite, index)
    result = merge(pytester, 0, 1, 3)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --tcab-merge: shard 2 of 4 is missing (given: shards 0, 1, 3): give every "
                                 "shard's folder (a failed array task? a glob that missed one?), or "
                                 "--tcab-allow-partial to merge what is there and say what is not"])
    assert not (suite / "merged/results.json").exists()


def test_allow_partial_merges_what_is_there_and_says_what_is_not(pytester: pytest.Pytester, suite: Path) -> None:
    for index in (0, 1, 3):
        write_shard(suite, index)
    pytester.makeini("[pytest]\ntcab_allow_partial = true\n")  # the ini twin
    result = merge(pytester, 0, 1, 3)
    assert result.ret == pytest.ExitCode.OK, result.stdout.str() + result.stderr.str()
    said = "merged shards 0, 1, 3 of 4 (dealt by hash); MISSING shard 2: their runs are in no figure of this sweep"
    result.stdout.fnmatch_lines([said])
    held = {"count": 4, "plan": "hash", "merged": [0, 1, 3], "missing": [2]}
    assert json.loads((suite / "merged/results.json").read_text())["shards"] == held
    sweep = json.loads((suite / "merged/sweep.json").read_text())
    assert sweep["shards"] == held and [row["run"] for row in sweep["runs"]] == ["r0", "r1", "r3"]
    assert sweep["graded_with"] == OPTIONS
    assert said in (suite / "merged/index.html").read_text()


def test_every_shard_merges_and_says_it_is_whole(pytester: pytest.Pytester, suite: Path) -> None:
    for index in range(4):
        write_shard(suite, index)
    result = merge(pytester, 0, 1, 2, 3, 3)  # a folder given twice is one shard
    assert result.ret == pytest.ExitCode.OK, result.stderr.str()
    result.stdout.fnmatch_lines(["merged shards 0, 1, 2, 3 of 4 (dealt by hash)"])
    assert json.loads((suite / "merged/sweep.json").read_text())["shards"]["missing"] == []


@pytest.mark.parametrize(("changes", "said"), [
    ({"graded_with": {**OPTIONS, "build_memory": 536870912}},
     "ERROR: --tcab-merge: shards differ in --tcab-build-memory: 4294967296 in shard-0, shard-2, shard-3; "
     "536870912 in shard-1"),
    ({"shard": {"index": 1, "count": 3, "plan": "hash", "suite": "sha256:aa"}},
     "--tcab-merge: shards differ in shard counts: 3 in shard-1; 4 in shard-0, shard-2, shard-3"),
    ({"shard": {"index": 1, "count": 4, "plan": "sha256:bb", "suite": "sha256:aa"}},
     "--tcab-merge: shards differ in plans: hash in shard-0, shard-2, shard-3; sha256:bb in shard-1"),
    ({"shard": {"index": 1, "count": 4, "plan": "hash", "suite": "sha256:cc"}},
     "--tcab-merge: shards differ in suites: sha256:aa in shard-0, shard-2, shard-3; sha256:cc in shard-1"),
    ({"shard": {"index": 0, "count": 4, "plan": "hash", "suite": "sha256:aa"}},
     "--tcab-merge: shard 0 is given twice, as shard-0, shard-1; give one folder of each shard"),
    ({"shard": None},
     "--tcab-merge: shard-1 is no shard (no `shard` in its results.json: graded without --tcab-shard), but "
     "shard-0 is shard 0 of 4 (dealt by hash, suite sha256:aa…); merge the shards of one sweep"),
    ({"tool": {"pytest-tcab": "0.9"}},
     "ERROR: --tcab-merge: shards differ in the plugin: 0.9 in shard-1; 1.0 in shard-0, shard-2, shard-3"),
])
def test_shards_that_do_not_make_one_sweep_are_refused_naming_the_folders(
        pytester: pytest.Pytester, suite: Path, changes: dict[str, Any], said: str) -> None:
    for index in (0, 2, 3):
        write_shard(suite, index)
    write_shard(suite, 1, **changes)
    result = merge(pytester, 0, 1, 2, 3, extra=("--tcab-allow-partial",))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*{said.removeprefix('ERROR: ')}"])
    assert "Traceback" not in result.stdout.str() + result.stderr.str()
