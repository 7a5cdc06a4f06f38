"""A sweep that dies loses only its runs in flight: killed with SIGKILL (serially or under -n 2) and
resumed, it gives the uninterrupted sweep's rows; shards chosen by index merge back into the
unsharded sweep; each finished run says so as it ends, and what graded it."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from sweep_suite import ARGS
from sweep_suite import write_sweep_suite

from pytest_tcab.run.report.journal import JOURNAL_FILE
from pytest_tcab.run.report.journal import journal_rows

pytestmark = pytest.mark.wasm

GAME_MANIFEST = Path("suite/versions/v1.0.0/test-cases/game.toml")
SLOW_BUILD = "if [ -f slow ]; then sleep 120; fi; mkdir -p dist && cp index.html dist/"
"""The game's build: a run holding a file `slow` is still building when the sweep is killed."""
SWEEP = Path("sweep")
ORDER = ("a-hero", "b-game", "c-game", "d-hero")
"""The runs in name order (serial order): two quick ones, the slow one, one after it."""
WAIT_S = 90.0


@pytest.fixture
def sweep(pytester: pytest.Pytester) -> Path:
    runs = write_sweep_suite(pytester.path)
    manifest = pytester.path / GAME_MANIFEST
    manifest.write_text(manifest.read_text().replace('build = "mkdir -p dist && cp index.html dist/"',
                                                     f'build = "{SLOW_BUILD}"'))
    folder = pytester.path / SWEEP
    for name in ORDER:
        shutil.copytree(runs / name.split("-")[1], folder / name)
    return folder


def rows(out: Path) -> dict[str, dict[str, Any]]:
    """sweep.json's rows by run, without what differs between two gradings of the same runs."""
    document = json.loads((out / "sweep.json").read_text())
    return {row["run"]: {key: value for key, value in row.items() if key not in ("duration_s", "resumed")}
            for row in document["runs"]}


def kill_after_two_runs(pytester: pytest.Pytester, *extra: str, runs: int = 2, out: str = "out") -> Path:
    """Start the sweep in its own process group, wait for `runs` journal lines, SIGKILL the group."""
    folder = pytester.path / out
    command = [sys.executable, "-m", "pytest", *ARGS, f"--tcab-run={SWEEP}", f"--tcab-out={folder}", *extra]
    process = subprocess.Popen(command, cwd=pytester.path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               start_new_session=True)
    deadline = time.monotonic() + WAIT_S
    try:
        while len(journal_rows(folder)) < runs:
            assert process.poll() is None, "the sweep ended before it was killed"
            assert time.monotonic() < deadline, f"no {runs} runs finished in time"
            time.sleep(0.05)
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    return folder


def assert_whole(out: Path) -> None:
    """Every file a run finished with is whole: results.json parses, report.html is closed."""
    for results in out.glob("*/results.json"):
        assert json.loads(results.read_text())["runs"]
        assert (results.parent / "report.html").read_text().rstrip().endswith("</html>")


@pytest.mark.parametrize("workers", [0, 2], ids=["serial", "n2"])
def test_a_killed_sweep_resumes_to_the_uninterrupted_rows(pytester: pytest.Pytester, sweep: Path,
                                                          workers: int) -> None:
    xdist = ("-n", str(workers)) if workers else ("-p", "no:xdist")
    (sweep / "c-game/slow").write_text("")
    out = kill_after_two_runs(pytester, *xdist)
    finished = journal_rows(out)
    assert "c-game" not in finished and len(finished) >= 2
    assert_whole(out)
    for name in finished:
        assert (out / name / "results.json").is_file()
    with (out / JOURNAL_FILE).open("a") as torn:  # a line the kill cut short
        torn.write('{"run": "c-game", "status": "gra')

    (sweep / "c-game/slow").unlink()
    resumed = pytester.runpytest_subprocess(*ARGS, f"--tcab-run={SWEEP}", f"--tcab-resume={out}",
                                            f"--tcab-out={out}", "-v", *xdist)
    assert resumed.ret == pytest.ExitCode.OK, resumed.stdout.str()
    for name in finished:  # finished before the kill: not graded again
        assert f"{name}/.tcab/run.toml::" not in resumed.stdout.str()
    resumed.stdout.fnmatch_lines(["*run */4 c-game: graded, 2 passed 1 skipped (*)*"])
    whole = pytester.runpytest_subprocess(*ARGS, f"--tcab-run={SWEEP}", "--tcab-out=whole", *xdist)
    assert whole.ret == pytest.ExitCode.OK
    assert rows(out) == rows(pytester.path / "whole")
    assert set(journal_rows(out)) == set(ORDER)  # the torn line skipped, the lines after it whole
    progress = json.loads((out / "sweep.json").read_text())["progress"]
    assert (progress["finished"], progress["total"], progress["resumed"], progress["done"]) == (
        4, 4, len(finished), True)


def test_shards_by_index_merge_into_the_unsharded_sweep_a_killed_one_resumed(
        pytester: pytest.Pytester, sweep: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    whole = pytester.runpytest_subprocess(*ARGS, f"--tcab-run={SWEEP}", "--tcab-out=whole", "-p", "no:xdist")
    assert whole.ret == pytest.ExitCode.OK
    whole.stdout.fnmatch_lines([  # each run, as it ends
        "run 1/4 a-hero: graded, 1 passed (* s); about * left",
        "run 2/4 b-game: graded, 2 passed 1 skipped (* s); about * left",
        "run 3/4 c-game: graded, 2 passed 1 skipped (* s); about * left",
        "run 4/4 d-hero: graded, 1 passed (* s)",
    ])
    graded_by = json.loads((pytester.path / "whole/a-hero/results.json").read_text())["runs"][0]["graded_by"]
    assert {"python", "pytest-tcab", "pytest", "wasmtime"} <= set(graded_by) and "chromium" not in graded_by
    assert rows(pytester.path / "whole")["a-hero"]["graded_by"] == graded_by
    assert not list((pytester.path / "whole").rglob("*.tmp"))  # every file renamed into place
    # By the hash of their names, shard 0 of 2 has c-game, shard 1 a-hero, b-game and d-hero in that order:
    # shard 1 is killed while b-game builds, after a-hero, and resumed as an array task run again would be.
    # b-game's build is hostile: it tries to forge every file a merge or a resume reads (its run folder
    # is not its results folder, and the sandbox shows it neither).
    manifest = pytester.path / GAME_MANIFEST
    manifest.write_text(manifest.read_text().replace(f'build = "{SLOW_BUILD}"',
                                                     f'build = "if [ -f hostile ]; then sh hostile; fi; {SLOW_BUILD}"'))
    forged = [pytester.path / name for name in ("shard-0/results.json", "shard-1/results.json", "shard-1/journal.jsonl",
                                                "shard-1/a-hero/results.json", "shard-1/sweep.json", "whole/sweep.json")]
    (sweep / "b-game/hostile").write_text("".join(f"echo forged >> {path} 2>/dev/null; echo forged > {path} "
                                                  "2>/dev/null; " for path in forged) + "true\n")
    monkeypatch.setenv("JOB_COMPLETION_INDEX", "0")  # as a Kubernetes Indexed Job sets it
    first = pytester.runpytest_subprocess(*ARGS, f"--tcab-run={SWEEP}", "--tcab-shard=auto/2", "--tcab-out=shard-0",
                                          "-p", "no:xdist")
    assert first.ret == pytest.ExitCode.OK, first.stdout.str()
    monkeypatch.setenv("JOB_COMPLETION_INDEX", "1")
    (sweep / "b-game/slow").write_text("")
    killed = kill_after_two_runs(pytester, "--tcab-shard=auto/2", "-p", "no:xdist", runs=1, out="shard-1")
    assert list(journal_rows(killed)) == ["a-hero"]
    (sweep / "b-game/slow").unlink()
    resumed = pytester.runpytest_subprocess(*ARGS, f"--tcab-run={SWEEP}", "--tcab-shard=auto/2", f"--tcab-out={killed}",
                                            f"--tcab-resume={killed}", "-p", "no:xdist", "-v")
    assert resumed.ret == pytest.ExitCode.OK, resumed.stdout.str()
    assert "a-hero/.tcab/run.toml::" not in resumed.stdout.str()  # kept, not graded again
    # The kept run is in every file the shard writes, as the runs graded after the resume are.
    for name in ("a-hero", "b-game", "d-hero"):
        assert name in [run["run"] for run in json.loads((killed / "results.json").read_text())["runs"]]
        assert name in rows(killed) and name in journal_rows(killed)
        assert f"run <b>{name}</b>" in (killed / "report.html").read_text()
        assert name in (killed / "index.html").read_text()
    for index in range(2):  # which shard of how many, dealt how, of which suite: in every file the merge reads
        record = json.loads((pytester.path / f"shard-{index}/results.json").read_text())["shard"]
        assert {key: record[key] for key in ("index", "count", "plan")} == {"index": index, "count": 2, "plan": "hash"}
        assert record["suite"].startswith("sha256:")
    assert json.loads((killed / "sweep.json").read_text())["shard"] == record
    assert json.loads((killed / "a-hero/results.json").read_text())["shard"] == record
    graded_with = json.loads((killed / "results.json").read_text())["graded_with"]
    assert (graded_with["build_memory"], graded_with["viewport"], graded_with["media"]) == (4 * 2**30, "1280x720", "all")
    assert rows(killed)["a-hero"]["graded_with"] == graded_with
    graded = [run["run"] for index in range(2)
              for run in json.loads((pytester.path / f"shard-{index}/results.json").read_text())["runs"]]
    assert sorted(graded) == sorted(ORDER)  # each run in one shard
    merged = pytester.runpytest_subprocess(*ARGS, "--tcab-merge=shard-0", "--tcab-merge=shard-1", "--tcab-out=merged")
    assert merged.ret == pytest.ExitCode.OK, merged.stdout.str()
    assert rows(pytester.path / "merged") == rows(pytester.path / "whole")
    merged.stdout.fnmatch_lines(["merged shards 0, 1 of 2 (dealt by hash)"])
    for path in pytester.path.glob("*/**/*"):
        assert not path.is_file() or b"forged" not in path.read_bytes() or path.name == "hostile", path
    # A shard resumes only its own folder: shard 0's, resumed as shard 1, is refused before anything is built.
    wrong = pytester.runpytest_subprocess(*ARGS, f"--tcab-run={SWEEP}", "--tcab-shard=auto/2", "--tcab-out=shard-0",
                                          "--tcab-resume=shard-0", "-p", "no:xdist")
    assert wrong.ret == pytest.ExitCode.USAGE_ERROR
    wrong.stderr.fnmatch_lines(["ERROR: --tcab-resume: shard-0/c-game/results.json was graded as shard 0 of 2 (dealt by "
                                "hash, suite sha256:*), and this session is shard 1 of 2 (dealt by hash, suite "
                                "sha256:*): resume a shard's folder with the same --tcab-shard, --tcab-shard-plan "
                                "and suite"])


def test_shards_dealt_by_a_plan_record_it_resume_by_it_and_merge(pytester: pytest.Pytester, sweep: Path) -> None:
    whole = pytester.runpytest_subprocess(*ARGS, f"--tcab-run={SWEEP}", "--tcab-out=whole", "-p", "no:xdist")
    assert whole.ret == pytest.ExitCode.OK
    shard_args = [(*ARGS, f"--tcab-run={SWEEP}", f"--tcab-shard={index}/2", "--tcab-shard-plan=whole",
                   f"--tcab-out=shard-{index}", "-p", "no:xdist") for index in range(2)]
    for args in shard_args:
        assert pytester.runpytest_subprocess(*args).ret == pytest.ExitCode.OK
    plans = [json.loads((pytester.path / f"shard-{index}/shard-plan.json").read_text()) for index in range(2)]
    assert plans[0] == plans[1] and sorted(plans[0]["shards"]) == sorted(ORDER)
    assert set(plans[0]["shards"].values()) == {0, 1}  # four runs over two shards: none empty
    for index in range(2):
        record = json.loads((pytester.path / f"shard-{index}/results.json").read_text())["shard"]
        assert (record["index"], record["count"], record["plan"]) == (index, 2, plans[0]["plan"])
        graded = {run["run"] for run in json.loads((pytester.path / f"shard-{index}/results.json").read_text())["runs"]}
        assert graded == {run for run, shard in plans[0]["shards"].items() if shard == index}
    assert plans[0]["plan"].startswith("sha256:")
    # PREVIOUS changes under a resumed shard: it deals by the plan its folder holds, and keeps its runs.
    earlier = json.loads((pytester.path / "whole/sweep.json").read_text())
    together = next(runs for index in range(2)
                    if len(runs := [run for run, shard in plans[0]["shards"].items() if shard == index]) > 1)
    for row in earlier["runs"]:  # the two runs the plan put together, now the two longest: a plan splits them
        row["duration_s"] = 100.0 if row["run"] in together[:2] else 1.0
    (pytester.path / "whole/sweep.json").write_text(json.dumps(earlier))
    resumed = pytester.runpytest_subprocess(*shard_args[1], "--tcab-resume=shard-1", "-v")
    assert resumed.ret == pytest.ExitCode.OK, resumed.stdout.str()
    assert "run.toml::" not in resumed.stdout.str()  # every run of the shard kept, none graded again
    assert json.loads((pytester.path / "shard-1/shard-plan.json").read_text()) == plans[1]
    merged = pytester.runpytest_subprocess(*ARGS, "--tcab-merge=shard-0", "--tcab-merge=shard-1", "--tcab-out=merged")
    assert merged.ret == pytest.ExitCode.OK, merged.stdout.str()
    merged.stdout.fnmatch_lines([f"merged shards 0, 1 of 2 (dealt by {plans[0]['plan']})"])
    assert rows(pytester.path / "merged") == rows(pytester.path / "whole")
    # A shard of another count, or a new shard dealt by the changed PREVIOUS, is not this sweep's.
    recount = pytester.runpytest_subprocess(*ARGS, f"--tcab-run={SWEEP}", "--tcab-shard=1/3", "--tcab-shard-plan=whole",
                                            "--tcab-out=shard-1", "--tcab-resume=shard-1", "-p", "no:xdist")
    assert recount.ret == pytest.ExitCode.USAGE_ERROR
    recount.stderr.fnmatch_lines(["ERROR: --tcab-resume: shard-1 was dealt into 2 shards (shard-plan.json), this "
                                  "session into 3: resume it with --tcab-shard=I/2"])
    again = pytester.runpytest_subprocess(*shard_args[0][:-3], "--tcab-out=shard-0-again", "-p", "no:xdist",
                                          "--tcab-build-memory=512MiB")  # and graded with a smaller cap
    assert again.ret == pytest.ExitCode.OK
    mixed = pytester.runpytest_subprocess(*ARGS, "--tcab-merge=shard-0-again", "--tcab-merge=shard-1",
                                          "--tcab-out=mixed")
    assert mixed.ret == pytest.ExitCode.USAGE_ERROR
    mixed.stderr.fnmatch_lines(["ERROR: --tcab-merge: shards differ in --tcab-build-memory: 4294967296 in shard-1; "
                                "536870912 in shard-0-again",
                                "--tcab-merge: shards differ in plans: sha256:* in shard-*; sha256:* in shard-*"])
    assert not (pytester.path / "mixed/results.json").exists()
    missing = pytester.runpytest_subprocess(*ARGS, f"--tcab-run={SWEEP}", "--tcab-shard=0/2",
                                            "--tcab-shard-plan=nowhere", "--tcab-out=x")
    assert missing.ret == pytest.ExitCode.USAGE_ERROR
    missing.stderr.fnmatch_lines(["ERROR: --tcab-shard-plan: nowhere does not exist; give an earlier sweep's "
                                  "--tcab-out folder or its sweep.json"])


@pytest.mark.parametrize(("value", "environment", "said"), [
    ("auto/4", {}, "*none of JOB_COMPLETION_INDEX, SLURM_ARRAY_TASK_ID, AWS_BATCH_JOB_ARRAY_INDEX is set*"),
    ("auto/4", {"SLURM_ARRAY_TASK_ID": "4"}, ("*(SLURM_ARRAY_TASK_ID='4'): the shard index must be a whole number "
                                             "from 0 to 3*")),
    ("4/4", {}, "*'4/4': the shard index must be a whole number from 0 to 3*"),
    ("1/0", {}, "*'1/0' is not I/N or auto/N*"),
])
def test_a_shard_index_out_of_range_is_a_usage_error(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
                                                     value: str, environment: dict[str, str], said: str) -> None:
    for name in ("JOB_COMPLETION_INDEX", "SLURM_ARRAY_TASK_ID", "AWS_BATCH_JOB_ARRAY_INDEX"):
        monkeypatch.delenv(name, raising=False)
    for name, text in environment.items():
        monkeypatch.setenv(name, text)
    result = pytester.runpytest(f"--tcab-shard={value}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([said])


@pytest.mark.parametrize("workers", [0, 2], ids=["serial", "n2"])
def test_a_resumed_sweeps_junit_file_holds_the_runs_it_kept_marked_carried(pytester: pytest.Pytester,
                                                                           sweep: Path, workers: int) -> None:
    """Every run results.json holds has its `<testcase>`s: the kept ones with their recorded outcomes,
    marked carried over (CI reading the JUnit file of a resumed shard sees the whole shard)."""
    import xml.etree.ElementTree as ET

    from pytest_tcab.run.report.junit import CARRIED_PROPERTY

    xdist = ("-n", str(workers)) if workers else ("-p", "no:xdist")
    (sweep / "c-game/slow").write_text("")
    out = kill_after_two_runs(pytester, *xdist)
    finished = set(journal_rows(out))
    (sweep / "c-game/slow").unlink()
    resumed = pytester.runpytest_subprocess(*ARGS, f"--tcab-run={SWEEP}", f"--tcab-resume={out}", f"--tcab-out={out}",
                                            "--junitxml=resumed.xml", *xdist)
    assert resumed.ret == pytest.ExitCode.OK, resumed.stdout.str()
    items = {item["nodeid"]: (run["run"], item["outcome"])
             for run in json.loads((out / "results.json").read_text())["runs"] for item in run["items"]}
    cases = {}
    for case in ET.parse(pytester.path / "resumed.xml").getroot().iter("testcase"):
        properties = {prop.get("name"): prop.get("value") for prop in case.iter("property")}
        outcome = "failed" if case.find("failure") is not None else (
            "skipped" if case.find("skipped") is not None else "passed")
        cases[f"{case.get('classname')}.{case.get('name')}"] = (outcome, CARRIED_PROPERTY in properties)
    assert len(cases) == len(items), (sorted(cases), sorted(items))
    carried = [nodeid for nodeid, (run, _) in items.items() if run in finished]
    assert carried and sum(is_carried for _, is_carried in cases.values()) == len(carried)
    recorded = sorted(outcome if outcome in ("passed", "failed") else "skipped" for _, outcome in items.values())
    assert sorted(outcome for outcome, _ in cases.values()) == recorded
