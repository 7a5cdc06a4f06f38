"""Toolchain steps beside the build (`run.sandbox.beside`), in real sessions: outcomes item for item
as without them, a hostile step fails its own item and nothing else, only selected steps start, and
no step outlives an interrupted session."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import test_build_disk
from definition_suite import GAME
from definition_suite import write_definition_suite
from test_definition_runs import game_definition
from test_definition_runs import write

from tests.unit.test_build import _running

SUITE = Path("suite")
ARGS = ("-p", "no:cacheprovider", "-p", "no:faulthandler", f"--tcab-suite={SUITE}", "--tcab-out=out")
BUILD = "if [ -f build.sh ]; then bash build.sh || exit 1; fi; mkdir -p dist && cp index.html dist/"
STEP = "if [ -f {0}.sh ]; then bash {0}.sh || exit $?; else echo {0} ok; fi"
"""Each step: a run's own script for it, where it has one (what a produced tree may do), else a pass."""
EARLY_OFF = "import pytest_tcab.run.sandbox.beside as beside\n\nbeside.BESIDE_WORKERS = 0\n"
"""A conftest for the graded session: every toolchain step at its turn, as before steps ran beside the build."""

RUNS: dict[str, dict[str, str]] = {
    "honest": {},
    "needs-the-build": {"typecheck.sh": "test -f dist/index.html && echo types ok\n"},
    "lint-fails": {"lint.sh": "echo unused variable; exit 1\n"},
    "typecheck-fails": {"typecheck.sh": "echo TS2322; exit 2\n"},
    "broken-build": {"build.sh": "exit 1\n", "lint.sh": "sleep 2\n"},
    "writes-into-the-build": {"lint.sh": "mkdir -p dist; echo pwned > dist/index.html; echo pwned > index.html\n"},
    "fork-bomb": {"lint.sh": "for i in $(seq 3000); do sleep 3 & done; wait\n"},
}


def suite(root: Path, runs: dict[str, dict[str, str]], extra_steps: str = "") -> list[str]:
    write_definition_suite(root / SUITE)
    steps = f'lint = "{STEP.format("lint")}"\n{extra_steps}'
    write(root / SUITE, {GAME: game_definition(STEP.format("typecheck"), build=BUILD, extra=steps)})
    for name, files in runs.items():
        write(root / "runs" / name, {Path(".tcab/run.toml"): 'case = "game"\nengine = "none"\n',
                                     Path("index.html"): "<!doctype html><title>game</title>\n",
                                     **{Path(file): text for file, text in files.items()}})
    return [f"--tcab-run={root / 'runs' / name}" for name in runs]


def outcomes(root: Path) -> dict[str, dict[str, tuple[str, str]]]:
    """Each run's items: outcome and the first line of what it said, but its build folder's name
    and how many forks the kernel refused a fork bomb (which differ from session to session)."""
    found = {}
    for run in json.loads((root / "out/results.json").read_text())["runs"]:
        found[run["run"]] = {item["id"]: (item["outcome"], _stable((item.get("message") or "").split("\n")[0]))
                             for item in run["items"]}
    return found


def _stable(message: str) -> str:
    return re.sub(r"refused \d+ of its forks", "refused N of its forks", re.sub(r"/\S*tcab-run-\S+", "<scratch>", message))


def session(pytester: pytest.Pytester, name: str, runs: dict[str, dict[str, str]], *args: str,
            early: bool = True, conftest: str = "") -> tuple[Path, pytest.RunResult]:
    root = pytester.mkdir(name)
    (root / "conftest.py").write_text(("" if early else EARLY_OFF) + conftest)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        done = pytester.run(sys.executable, "-m", "pytest", *ARGS, "--tcab-build-timeout=120", *args,
                            *suite(root, runs), timeout=600)
    return root, done


def test_outcomes_are_those_of_steps_at_their_turn_item_for_item(pytester: pytest.Pytester) -> None:
    beside, _ = session(pytester, "beside", RUNS)
    alone, _ = session(pytester, "alone", RUNS, early=False)
    found, expected = outcomes(beside), outcomes(alone)
    assert found == expected
    assert found["honest"]["lint"][0] == "passed"
    assert found["needs-the-build"]["typecheck"][0] == "passed", "told at its turn, after the build"
    assert found["lint-fails"]["lint"][0] == "recorded"
    assert found["typecheck-fails"]["typecheck"][0] == "failed"
    assert found["broken-build"]["lint"] == ("failed", "not run: build failed (build failed: "
                                                        f"`{BUILD}` exited 1)")
    assert found["writes-into-the-build"] == found["honest"], "its writes stayed in its copy"
    bomb = found["fork-bomb"]
    assert bomb["lint"][0] == "failed" and "process cap" in bomb["lint"][1], bomb
    assert {item: outcome for item, (outcome, _) in bomb.items() if item != "lint"} == \
        {item: outcome for item, (outcome, _) in found["honest"].items() if item != "lint"}


def test_a_step_starts_beside_the_build(pytester: pytest.Pytester) -> None:
    """The build waits (up to a minute) for the lint step's mark in the shared no-sandbox folder:
    it sees it only if lint runs while it builds."""
    mark = pytester.path / "lint-ran"
    build = f"for i in $(seq 600); do [ -e {mark} ] && echo seen lint beside && break; sleep 0.1; done\n"
    root, _ = session(pytester, "mark", {"honest": {"build.sh": build, "lint.sh": f"touch {mark}\n"}},
                      "--tcab-no-sandbox")
    run = json.loads((root / "out/results.json").read_text())["runs"][0]
    build_item = next(item for item in run["items"] if item["id"] == "build")
    assert "seen lint beside" in build_item["steps"][-1]["output"]


@pytest.mark.parametrize(("selected", "started"), [("build", set()), ("typecheck", {"typecheck"}),
                                                   ("toolchain", {"typecheck", "lint"})])
def test_only_the_steps_of_selected_items_start(pytester: pytest.Pytester, selected: str, started: set[str]) -> None:
    marks = pytester.path / "marks"
    marks.mkdir()
    files = {f"{step}.sh": f"touch {marks}/{step}\n" for step in ("typecheck", "lint")}
    session(pytester, "k", {"honest": files}, "--tcab-no-sandbox", "-k", selected)
    assert {path.name for path in marks.iterdir()} == started


@pytest.mark.parametrize("stop", ["-x", "SIGINT"])
def test_a_stopped_session_leaves_no_step_behind(pytester: pytest.Pytester, stop: str) -> None:
    token = f"1000.{os.getpid()}{abs(hash(stop)) % 10**6}"  # `sleep <token>`, run by a script: its own argument
    runs = {"stopped": {"typecheck.sh": "exit 2\n", "lint.sh": f"sleep {token}\n",
                        "build.sh": "sleep 1000\n" if stop == "SIGINT" else ""}}
    root = pytester.mkdir("stopped")
    argv = [sys.executable, "-m", "pytest", *ARGS, "--tcab-build-timeout=300", *suite(root, runs)]
    begun = time.monotonic()
    with subprocess.Popen([*argv, *(["-x"] if stop == "-x" else [])], cwd=root, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL) as graded:
        if stop == "SIGINT":
            while not _running(token):
                assert graded.poll() is None and time.monotonic() - begun < 200, "the step never started"
                time.sleep(0.2)
            graded.send_signal(signal.SIGINT)
        graded.wait(timeout=250)
    assert time.monotonic() - begun < 250, "stopped long before the step's own timeout"
    assert not _running(token)


small_scratch = test_build_disk.small_scratch


def test_a_step_that_fills_the_runs_disk_fails_its_own_item_naming_the_cap(pytester: pytest.Pytester,
                                                                           small_scratch: Path) -> None:
    runs = {"honest": {}, "filler": {"lint.sh": "dd if=/dev/zero of=fill bs=1M status=none; true\n"}}
    root, done = session(pytester, "fill", runs, "--tcab-build-disk=64MiB")
    found = outcomes(root)
    assert found["filler"]["lint"][0] == "failed"
    done.stdout.fnmatch_lines(["*lint failed: `*` went past its disk cap of 64 MiB (it wrote 6* MiB into its build "
                               "folder, *; --tcab-build-disk)*"])
    assert {item: seen for item, seen in found["filler"].items() if item != "lint"} == \
        {item: seen for item, seen in found["honest"].items() if item != "lint"}, "the build and the rest as honest"
    assert not list(small_scratch.glob("tcab-run-*")), "what the filler wrote is gone"


NO_ROOM_FOR_A_COPY = """
import errno

import pytest_tcab.run.sandbox.toolchain as toolchain


def _no_room(workdir):
    raise OSError(errno.ENOSPC, "No space left on device")


toolchain.copy_workdir = _no_room
"""
"""A conftest for the graded session: every copy of the built workdir for a step at its turn finds the disk full."""


def test_a_step_whose_copy_does_not_fit_the_disk_fails_naming_the_cap(pytester: pytest.Pytester) -> None:
    root, done = session(pytester, "no-room", {"honest": {}}, early=False, conftest=NO_ROOM_FOR_A_COPY)
    found = outcomes(root)["honest"]
    assert found["typecheck"][0] == "failed" and found["lint"][0] == "failed", found
    assert found["build"][0] == "passed"
    done.stdout.fnmatch_lines(["*typecheck failed: a copy of the build folder to run it in does not fit the run's "
                               "disk cap of * (--tcab-build-disk)*"])
