"""Steps beside the build (`run.sandbox.beside`): real shell steps, real copies, a fake run around them."""

from __future__ import annotations

import os
import shutil
import threading
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from pytest_tcab.run.sandbox import beside as beside_module
from pytest_tcab.run.sandbox.beside import StepsBeside
from pytest_tcab.run.sandbox.disk import RunDisk
from pytest_tcab.run.sandbox.sandbox import Sandbox
from pytest_tcab.run.sandbox.sandbox import home_for
from pytest_tcab.run.sandbox.steps import build_static
from pytest_tcab.run.sandbox.steps import copy_workdir
from tests.unit.test_build import _running

BWRAP = Sandbox(shutil.which("bwrap"), "install")


class FakeRun:
    """What a StepsBeside reads of its run: its options, its disk, its label."""

    def __init__(self, disk: RunDisk, timeout_s: float = 60) -> None:
        self.config = SimpleNamespace(getoption=lambda name: timeout_s)
        self.disk = disk
        self.label = "fake"


@pytest.fixture(autouse=True)
def sandboxed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(beside_module, "session_sandbox", lambda config: BWRAP)


@pytest.fixture
def scratch(tmp_path: Path) -> RunDisk:
    (tmp_path / "disk").mkdir()
    return RunDisk(tmp_path / "disk", 2**30, "watchdog")


def _source(tmp_path: Path) -> Path:
    source = tmp_path / "impl"
    (source / "src").mkdir(parents=True)
    (source / "src/index.html").write_text("<p>game</p>")
    return source


INSTALL = "mkdir -p node_modules/tool && echo installed > node_modules/tool/index.js && echo cached > ~/cache"
BUILD = "sleep 3; mkdir -p dist && cp src/index.html dist/ && echo built > built.txt"


def _steps_beside(run: FakeRun, steps: dict[str, str], started: list[StepsBeside]) -> Any:
    def after_install(workdir: Path) -> StepsBeside:
        started.append(StepsBeside(run, steps).start(workdir))  # type: ignore[arg-type]
        return started[-1]
    return after_install


def _no_step_threads() -> bool:
    return not [thread for thread in threading.enumerate() if thread.name.startswith("tcab-beside")]


def test_steps_run_beside_the_build_in_copies_taken_after_the_install(tmp_path: Path, scratch: RunDisk) -> None:
    run = FakeRun(scratch)
    started: list[StepsBeside] = []
    steps = {"typecheck": "date +%s.%N; cat node_modules/tool/index.js ~/cache",
             "lint": "test ! -e dist && echo no build yet"}
    result = build_static(_source(tmp_path), INSTALL, BUILD, scratch.path, 60, BWRAP, scratch,
                          after_install=_steps_beside(run, steps, started))
    built = time.time()
    assert result.ok, result.message
    typecheck, lint = started[0].take("typecheck"), started[0].take("lint")
    assert typecheck is not None and typecheck.result.ok, typecheck
    assert "installed\ncached" in typecheck.result.output  # the install's files and home, not the build's
    assert lint is not None and lint.result.ok and "no build yet" in lint.result.output
    assert float(typecheck.result.output.split()[0]) < built, "it started while the build step ran"
    assert started[0].take("typecheck") is None, "taken once: an attempt again runs its step anew"
    started[0].stand_down()
    assert sorted(path.name for path in scratch.path.iterdir()) == sorted([result.workdir.name,
                                                                          home_for(result.workdir).name])
    assert _no_step_threads()


def test_a_step_writing_into_the_build_changes_only_its_copy(tmp_path: Path, scratch: RunDisk) -> None:
    run = FakeRun(scratch)
    started: list[StepsBeside] = []
    hostile = ("mkdir -p dist && echo pwned > dist/index.html && echo pwned > src/index.html && "
               "echo pwned > node_modules/tool/index.js; for f in ../*; do echo pwned > $f/src/index.html; done; true")
    result = build_static(_source(tmp_path), INSTALL, BUILD, scratch.path, 60, BWRAP, scratch,
                          after_install=_steps_beside(run, {"lint": hostile}, started))
    outcome = started[0].take("lint")
    started[0].stand_down()
    assert result.ok and outcome is not None and outcome.result.ok
    assert result.output_dir is not None
    assert (result.output_dir / "index.html").read_text() == "<p>game</p>"
    assert (result.workdir / "src/index.html").read_text() == "<p>game</p>"
    assert (result.workdir / "node_modules/tool/index.js").read_text() == "installed\n"


def test_a_step_that_sleeps_forever_is_ended_with_the_run(tmp_path: Path, scratch: RunDisk) -> None:
    token = f"sleep 1000.{os.getpid()}{abs(hash(tmp_path)) % 10**6}"
    run = FakeRun(scratch)
    started: list[StepsBeside] = []
    result = build_static(_source(tmp_path), INSTALL, BUILD, scratch.path, 60, BWRAP, scratch,
                          after_install=_steps_beside(run, {"test": token, "lint": "true"}, started))
    assert result.ok
    begun = time.monotonic()
    started[0].stand_down()  # what `RunContext.release` does, through `end_beside`
    assert time.monotonic() - begun < 20
    assert started[0].take("test") is None and started[0].take("lint") is None
    assert not _running(token) and _no_step_threads()
    assert not [path for path in scratch.path.iterdir() if path.name.startswith("tcab-step-")]


def test_a_failure_that_may_be_the_builds_is_told_at_its_turn(tmp_path: Path, scratch: RunDisk) -> None:
    run = FakeRun(scratch)
    started: list[StepsBeside] = []
    steps = {"typecheck": "test -f dist/index.html", "lint": "exit 3"}
    result = build_static(_source(tmp_path), INSTALL, BUILD, scratch.path, 60, BWRAP, scratch,
                          after_install=_steps_beside(run, steps, started))
    assert result.ok
    assert started[0].take("typecheck") is None, "it looked for the build's output: it runs again after the build"
    assert started[0].take("lint") is None
    started[0].stand_down()


def test_a_step_that_fills_the_shared_disk_is_told_at_its_turn_and_the_build_is_done_alone(
        tmp_path: Path) -> None:
    (tmp_path / "disk").mkdir()
    disk = RunDisk(tmp_path / "disk", 32 * 2**20, "watchdog")
    run = FakeRun(disk)
    started: list[StepsBeside] = []
    filler = "dd if=/dev/zero of=fill bs=1M count=200 status=none; true"
    slow_build = "sleep 2; mkdir -p dist && cp src/index.html dist/"
    result = build_static(_source(tmp_path), INSTALL, slow_build, disk.path, 60, BWRAP, disk,
                          after_install=_steps_beside(run, {"lint": filler}, started))
    assert result.ok, result.message  # the build, alone, fits its disk
    assert started[0].take("lint") is None
    started[0].stand_down()
    assert not disk.full()


def test_a_build_that_fails_beside_the_steps_ends_them(tmp_path: Path, scratch: RunDisk) -> None:
    token = f"sleep 1000.{os.getpid()}{abs(hash(tmp_path)) % 10**6}"
    run = FakeRun(scratch)
    started: list[StepsBeside] = []
    result = build_static(_source(tmp_path), INSTALL, "sleep 1; exit 2", scratch.path, 60, BWRAP, scratch,
                          after_install=_steps_beside(run, {"lint": token}, started))
    assert not result.ok and result.message.startswith("build failed: `sleep 1; exit 2` exited 2")
    assert len(result.steps) == 2, "an exit status of its own: not built again"
    assert not _running(token) and _no_step_threads()


def test_a_build_past_its_time_beside_the_steps_is_done_again_alone(tmp_path: Path, scratch: RunDisk) -> None:
    run = FakeRun(scratch)
    started: list[StepsBeside] = []
    after_install = _steps_beside(run, {"lint": "sleep 30"}, started)
    seen: list[Path] = []
    result = build_static(_source(tmp_path), "true", "sleep 5", scratch.path, 1, BWRAP, scratch,
                          after_install=lambda workdir: seen.append(workdir) or after_install(workdir))
    assert not result.ok and "timed out after 1 s" in result.message
    assert len(started) == 1, "the second build ran without steps beside it"
    assert result.workdir != seen[0] and not seen[0].exists(), "in a workdir of its own, the first one removed"


def test_a_build_that_hangs_beside_a_short_step_is_not_made_to_hang_twice(tmp_path: Path, scratch: RunDisk) -> None:
    run = FakeRun(scratch)
    started: list[StepsBeside] = []
    seen: list[Path] = []
    after_install = _steps_beside(run, {"lint": "true"}, started)
    result = build_static(_source(tmp_path), "true", "sleep 60", scratch.path, 8, BWRAP, scratch,
                          after_install=lambda workdir: seen.append(workdir) or after_install(workdir))
    assert not result.ok and "timed out after 8 s" in result.message
    assert result.workdir == seen[0], "its own timeout: not built again"


def test_copy_workdir_copies_everything_but_special_files(tmp_path: Path) -> None:
    workdir = tmp_path / "tcab-build-x"
    (workdir / "node_modules/.bin").mkdir(parents=True)
    (workdir / "node_modules/tool.js").write_text("tool")
    (workdir / "node_modules/.bin/tool").symlink_to("../tool.js")
    (workdir / "outside").symlink_to("/etc/passwd")
    os.mkfifo(workdir / "pipe")
    home_for(workdir).mkdir()
    (home_for(workdir) / ".npmrc").write_text("cache")
    copy = copy_workdir(workdir)
    assert copy.parent == workdir.parent
    assert (copy / "node_modules/.bin/tool").read_text() == "tool"
    assert os.readlink(copy / "node_modules/.bin/tool") == "../tool.js"
    assert os.readlink(copy / "outside") == "/etc/passwd", "a link is copied as a link, never followed"
    assert not (copy / "pipe").exists()
    assert (home_for(copy) / ".npmrc").read_text() == "cache"


def test_a_build_let_go_ends_its_step_and_what_runs_beside_it(tmp_path: Path, scratch: RunDisk) -> None:
    token = f"1000.{os.getpid()}{abs(hash(tmp_path)) % 10**6}"
    run = FakeRun(scratch)
    started: list[StepsBeside] = []
    cancel = threading.Event()
    threading.Timer(3, cancel.set).start()
    result = build_static(_source(tmp_path), "true", f"sleep {token}", scratch.path, 60, BWRAP, scratch,
                          after_install=_steps_beside(run, {"lint": f"sleep {token}"}, started), cancel=cancel)
    assert not result.ok and not result.steps[-1].timed_out
    assert not _running(token) and _no_step_threads()
