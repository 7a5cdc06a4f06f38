"""A build's processes are capped (`--tcab-build-processes`): a build or toolchain step that forks
3,000 processes fails its own run, naming the cap and how it was held, and the next run is graded
as if it had never been. Real processes, in real sessions."""

from __future__ import annotations

import json
import os

import pytest
from beside_honest import grade
from beside_honest import outcomes
from beside_honest import sweep

from pytest_tcab.run.sandbox.cgroup import find_parent
from pytest_tcab.run.sandbox.sandbox import PROCESS_SCOPES

BUILD = "if [ -f build.sh ]; then bash build.sh; fi; mkdir -p dist && cp index.html dist/"
TYPECHECK = "if [ -f typecheck.sh ]; then bash typecheck.sh; fi; test -f dist/index.html && echo types ok"
"""The case's steps: a run's own script first, where it has one (what a produced build may do)."""
BOMB = "for i in $(seq 3000); do sleep 3 & done; wait\n"
"""3,000 processes, each `sleep 3`, then the step goes on as an honest one would."""


NO_PIDS_CGROUP = """
import pytest_tcab.run.sandbox.sandbox as sandbox

_found = sandbox.find_parent
sandbox.find_parent = lambda controller="memory": None if controller == "pids" else _found(controller)
"""
"""A conftest for the graded session: as on a host that gives the grader no pids cgroup."""


def mechanism(fallback: bool) -> str:
    if not fallback and find_parent("pids") is not None:
        return "pids.max"
    if os.geteuid() == 0:
        return "RLIMIT_NPROC as nobody"
    return "RLIMIT_NPROC"


@pytest.mark.parametrize(("step", "fallback"), [("build", False), ("typecheck", False), ("build", True)],
                         ids=["build", "typecheck", "build-without-pids-cgroup"])
def test_a_step_that_forks_3000_processes_fails_alone_and_the_next_run_passes_as_alone(
        pytester: pytest.Pytester, step: str, fallback: bool) -> None:
    by = mechanism(fallback)
    alone = pytester.mkdir("alone")
    grade(pytester, alone, *sweep(alone, build=BUILD, typecheck=TYPECHECK))
    shared = pytester.mkdir("shared")
    if fallback:
        (shared / "conftest.py").write_text(NO_PIDS_CGROUP)
    done = grade(pytester, shared, *sweep(shared, build=BUILD, typecheck=TYPECHECK, hostile="bomb",
                                          scripts={f"{step}.sh": BOMB}))
    found = outcomes(shared)
    assert found["bomb"]["not_graded"] == [], found["bomb"]
    assert found["bomb"]["items"].get(step) == "failed", found["bomb"]["items"]
    done.stdout.fnmatch_lines([f"*{step} failed: `*` reached its process cap of 512 ({PROCESS_SCOPES[by]}, "
                               "--tcab-build-processes): *",
                               f"*process cap: 512, {PROCESS_SCOPES[by]}*"])
    assert found["honest"] == outcomes(alone)["honest"]
    assert "failed" not in found["honest"]["items"].values(), found["honest"]
    data = json.loads((shared / "out/results.json").read_text())
    assert (data["sandbox"]["process_cap"], data["sandbox"]["process_cap_by"]) == (512, by)
    bomb = next(run for run in data["runs"] if run["run"] == "bomb")
    record = next(entry for entry in bomb["items"] if entry["id"] == step)
    steps = record["steps"] if step == "build" else [record]
    assert steps[-1]["process_cap_by"] == by and steps[-1]["over_process_cap"] is True, steps[-1]
