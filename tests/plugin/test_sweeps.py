"""Sweeps end to end: many runs of any cases graded in one session, as each alone, and what the
session writes of them (sweep.json, index.html, each run's folder), compared and resumed."""

from __future__ import annotations

import json
import shlex
import shutil
from pathlib import Path
from typing import Any

# pytester's in-process runs drop the modules first imported inside them, and numpy, Pillow and
# Playwright cannot be imported afresh in one process: they are loaded here and kept.
import numpy  # noqa: F401
import PIL.Image  # noqa: F401
import playwright.sync_api  # noqa: F401
import pytest
from sweep_suite import ARGS
from sweep_suite import RUN_NAMES
from sweep_suite import RUNS
from sweep_suite import TOURNAMENT
from sweep_suite import write_sweep_suite

pytestmark = pytest.mark.wasm


@pytest.fixture
def runs(pytester: pytest.Pytester) -> Path:
    return write_sweep_suite(pytester.path)


def outcomes(results: dict[str, Any]) -> dict[str, dict[str, str]]:
    """Per run, each item's outcome by the item's name (its node id past the file)."""
    return {run["run"]: {item["nodeid"].rpartition("::")[2]: item["outcome"] for item in run["items"]}
            for run in results["runs"]}


def read(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def test_runs_of_every_kind_grade_in_one_session_as_each_alone(pytester: pytest.Pytester, runs: Path) -> None:
    alone: dict[str, dict[str, str]] = {}
    for name in sorted(set(RUN_NAMES) - set(TOURNAMENT)):
        pytester.runpytest(*ARGS, f"--tcab-run={RUNS / name}", f"--tcab-out=alone-{name}")
        alone |= outcomes(read(pytester.path / f"alone-{name}/results.json"))
    pytester.runpytest(*ARGS, *(f"--tcab-run={RUNS / name}" for name in TOURNAMENT), "--tcab-out=alone-echo")
    alone |= outcomes(read(pytester.path / "alone-echo/results.json"))
    assert set(alone) == {"game", "good", "hero", "perf", "echo-tournament"}

    serial = pytester.runpytest(*ARGS, f"--tcab-run={RUNS}", "--tcab-out=serial")
    assert serial.ret == pytest.ExitCode.OK, serial.stdout.str()
    sweep = read(pytester.path / "serial/sweep.json")
    assert {row["run"]: row["items"] for row in sweep["runs"]} == alone
    assert all(row["status"] == "graded" for row in sweep["runs"])
    for name in alone:  # each run's own folder: its results.json and report.html
        assert outcomes(read(pytester.path / f"serial/{name}/results.json")) == {name: alone[name]}
        assert (pytester.path / f"serial/{name}/report.html").is_file()
    assert (pytester.path / "serial/index.html").is_file()
    serial.stdout.fnmatch_lines(["*harness / model*case*mean [[]95% CI]*runs*", "*- / -*demo*"])

    spread = pytester.runpytest(*ARGS, f"--tcab-run={RUNS}", "--tcab-out=spread", "-n", "2", "--dist", "loadgroup")
    assert spread.ret == pytest.ExitCode.OK, spread.stdout.str()
    assert {row["run"]: row["items"] for row in read(pytester.path / "spread/sweep.json")["runs"]} == alone


def test_run_folders_given_as_paths_are_graded(pytester: pytest.Pytester, runs: Path) -> None:
    result = pytester.runpytest(*ARGS, str(RUNS / "perf"), str(RUNS / "hero/.tcab/run.toml"), "--tcab-out=out", "-v")
    result.assert_outcomes(passed=4)
    result.stdout.fnmatch_lines(["suite/runs/hero/.tcab/run.toml::asset[[]hero.png] PASSED*"])
    assert {row["run"] for row in read(pytester.path / "out/sweep.json")["runs"]} == {"perf", "hero"}


def test_a_bad_run_fails_alone_and_is_a_row(pytester: pytest.Pytester, runs: Path) -> None:
    (runs / "perf/.tcab/run.toml").write_text('case = "perf"\nmodle = "x"\n[labels]\ntemperature = 0.2\n')
    (runs / "nowhere/.tcab").mkdir(parents=True)
    (runs / "nowhere/.tcab/run.toml").write_text('case = "nope"\n')
    result = pytester.runpytest(*ARGS, f"--tcab-run={runs / 'perf'}", f"--tcab-run={runs / 'hero'}",
                                f"--tcab-run={runs / 'nowhere'}", f"--tcab-run={runs / 'gone'}", "--tcab-out=out")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.assert_outcomes(passed=1, errors=2)
    text = result.stdout.str()
    result.stdout.fnmatch_lines(["*perf/.tcab/run.toml:2: *unknown key `modle`*",
                                 "*perf/.tcab/run.toml:4: *labels.temperature*must be a string*"], consecutive=False)
    assert "no case with slug 'nope'" in text and "Traceback" not in text
    rows = {row["run"]: row for row in read(pytester.path / "out/sweep.json")["runs"]}
    assert rows["hero"]["status"] == "graded"
    assert {name: rows[name]["status"] for name in ("perf", "nowhere", "gone")} == dict.fromkeys(
        ("perf", "nowhere", "gone"), "bad input")
    assert "unknown key `modle`" in rows["perf"]["error"] and "does not exist" in rows["gone"]["error"]


def test_who_produced_a_run_rides_on_its_items(pytester: pytest.Pytester, runs: Path) -> None:
    (runs / "perf/.tcab/run.toml").write_text(
        'case = "perf"\nmodel = "model-a"\nharness = "harness-x"\n[labels]\ntemperature = "0.2"\n')
    (runs / "hero/.tcab/run.toml").write_text('case = "hero"\nmodel = "model-b"\nharness = "harness-x"\n')
    args = (*ARGS, f"--tcab-run={runs / 'perf'}", f"--tcab-run={runs / 'hero'}", "--tcab-out=out")
    result = pytester.runpytest(*args, "-m", "model-a and temperature-0.2", "--junitxml=junit.xml")
    result.assert_outcomes(passed=3, deselected=1)
    junit = (pytester.path / "junit.xml").read_text()
    assert 'name="tcab.model" value="model-a"' in junit and 'name="tcab.label.temperature" value="0.2"' in junit
    result = pytester.runpytest(*args, "-k", "model-b")
    result.assert_outcomes(passed=1, deselected=3)
    results = read(pytester.path / "out/results.json")
    hero = next(run for run in results["runs"] if run["run"] == "hero")
    assert (hero["model"], hero["harness"], hero["labels"]) == ("model-b", "harness-x", {})


def test_compare_says_what_changed_since_an_earlier_sweep(pytester: pytest.Pytester, runs: Path) -> None:
    args = (*ARGS, f"--tcab-run={runs / 'perf'}", f"--tcab-run={runs / 'game'}")
    pytester.runpytest(*args, "--tcab-out=before")
    (runs / "perf/prebuilt/echo.wasm").write_bytes(b"\0asm\1\0\0\0")  # a module that exports nothing
    result = pytester.runpytest(*args, f"--tcab-run={runs / 'hero'}", "--tcab-out=after",
                                "--tcab-compare=before")
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # the new failures, not the comparison
    result.stdout.fnmatch_lines(["*compared with before: 1 runs changed, 1 unchanged, 1 added, 0 gone",
                                 "*perf: score 1.000 -> 0.000 (down); newly failing: *"])
    comparison = read(pytester.path / "after/sweep.json")["compare"]
    assert comparison["added"] == ["hero"] and comparison["gone"] == []
    (change,) = comparison["runs"]
    assert change["run"] == "perf" and change["newly_failing"] == ["build", "correctness[tiny]", "fuel[big]"]
    assert "newly failing" in (pytester.path / "after/index.html").read_text()


def test_matrix_shards_merge_back_into_the_unsharded_sweep(pytester: pytest.Pytester, runs: Path) -> None:
    whole = pytester.runpytest(*ARGS, f"--tcab-run={RUNS}", "--tcab-out=whole")
    assert whole.ret == pytest.ExitCode.OK
    by_hash = pytester.runpytest(*ARGS, f"--tcab-run={RUNS}", "--tcab-matrix", "--tcab-shards=2")
    (line,) = [line for line in by_hash.outlines if line.startswith('{"include":')]
    (entry,) = json.loads(line)["include"]  # as --tcab-shard deals them: every run's name hashes to shard 0
    assert (entry["name"], entry["plan"]) == ("runs 1 of 2", "hash")
    assert entry["runs"].split() == ["echo-tournament", "game", "good", "hero", "perf"]
    # Dealt by their durations in the whole sweep, longest first onto the lightest entry.
    matrix = pytester.runpytest(*ARGS, f"--tcab-run={RUNS}", "--tcab-matrix", "--tcab-shards=2",
                                "--tcab-shard-plan=whole")
    (line,) = [line for line in matrix.outlines if line.startswith('{"include":')]
    entries = json.loads(line)["include"]
    assert [entry["name"] for entry in entries] == ["runs 1 of 2", "runs 2 of 2"]
    assert entries[0]["plan"].startswith("sha256:") and entries[0]["plan"] == entries[1]["plan"]
    shards = []
    for entry in entries:
        out = f"shard-{entry['shard']}"
        pytester.runpytest(*ARGS, f"--tcab-out={out}", *shlex.split(entry["args"]))
        shards.append(f"--tcab-merge={out}")
    merged = pytester.runpytest(*ARGS, *shards, "--tcab-out=merged")
    assert merged.ret == pytest.ExitCode.OK, merged.stdout.str()

    def rows(folder: str) -> list[dict[str, Any]]:
        return [{key: value for key, value in row.items() if key != "duration_s"}
                for row in read(pytester.path / folder / "sweep.json")["runs"]]

    assert rows("merged") == rows("whole")
    def board(folder: str) -> list[dict[str, Any]]:  # durations are measured, not recomputed
        return [{key: value for key, value in cell.items() if key != "duration"}
                for cell in read(pytester.path / folder / "sweep.json")["leaderboard"]]

    assert board("merged") == board("whole")
    assert (pytester.path / "merged/perf/report.html").is_file()
    # The same by index, dealt by the plan: a tournament goes with the folder it is collected under.
    for index in range(2):
        shard = pytester.runpytest(*ARGS, f"--tcab-run={RUNS}", f"--tcab-shard={index}/2", "--tcab-shard-plan=whole",
                                   f"--tcab-out=plan-{index}")
        assert shard.ret == pytest.ExitCode.OK, shard.stdout.str()
    graded = [{run["run"] for run in read(pytester.path / f"plan-{index}/results.json")["runs"]} for index in range(2)]
    assert not graded[0] & graded[1] and graded[0] and graded[1]  # each run in one shard, neither shard empty
    assert graded[0] | graded[1] == {row["run"] for row in read(pytester.path / "whole/sweep.json")["runs"]}
    by_plan = pytester.runpytest(*ARGS, "--tcab-merge=plan-0", "--tcab-merge=plan-1", "--tcab-out=by-plan")
    assert by_plan.ret == pytest.ExitCode.OK, by_plan.stdout.str() + by_plan.stderr.str()
    assert rows("by-plan") == rows("whole")
    shutil.rmtree(pytester.path / "whole")
