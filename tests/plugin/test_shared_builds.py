"""`--tcab-share-builds` end to end, in real processes: identical runs build once and are each
graded as their own; a run that differs by one byte builds for itself; a shared failure fails
every run that shares it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

# pytester's in-process runs drop the modules first imported inside them, and numpy, Pillow and
# Playwright cannot be imported afresh in one process: they are loaded here and kept.
import numpy  # noqa: F401
import PIL.Image  # noqa: F401
import playwright.sync_api  # noqa: F401
import pytest
from sweep_suite import ARGS
from sweep_suite import GAMES
from sweep_suite import observed
from sweep_suite import write_sweep_suite

from pytest_tcab.run.browser.discovery import NO_BROWSER_REASON
from pytest_tcab.run.browser.discovery import find_chromium

COUNTER = '''
import os

import pytest_tcab.run.context as context

_build_static = context.build_static


def counted(source, *args, **kwargs):
    with open(os.environ["TCAB_BUILD_LOG"], "a") as log:
        log.write(source.name + "\\n")
    return _build_static(source, *args, **kwargs)


context.build_static = counted
'''
"""Logs every build the session really runs, by the run folder it builds."""


def grade(pytester: pytest.Pytester, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch,
          runs: list[Path]) -> tuple[list[str], dict[str, dict[str, dict[str, object]]], str, Path]:
    """The builds run, each run's items by name (from its own results.json), the output, the scratch folder."""
    scratch, log = observed(pytester, request, monkeypatch, COUNTER, "TCAB_BUILD_LOG")
    result = pytester.runpytest_subprocess(*ARGS, "--tcab-share-builds", *(f"--tcab-run={run}" for run in runs),
                                           "--tcab-out=out", timeout=300)
    items = {}
    for run in runs:
        data = json.loads((pytester.path / "out" / run.name / "results.json").read_text())
        assert [entry["run"] for entry in data["runs"]] == [run.name]
        items[run.name] = {item["nodeid"].rsplit("::", 1)[-1]: item for item in data["runs"][0]["items"]}
    built = log.read_text().split() if log.exists() else []
    return built, items, result.stdout.str(), scratch


@pytest.mark.skipif(find_chromium(None) is None, reason=NO_BROWSER_REASON)
@pytest.mark.browser
def test_identical_runs_build_once_and_each_is_graded_as_its_own(pytester: pytest.Pytester,
                                                                 request: pytest.FixtureRequest,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    runs = write_sweep_suite(pytester.path)
    good = runs / "good"
    (good / ".tcab/run.toml").write_text('case = "demo"\nmodel = "atlas"\n')
    twin, flawed, near = runs / "twin", runs / "flawed", runs / "near"
    shutil.copytree(good, twin)
    (twin / ".tcab/run.toml").write_text('case = "demo"\nmodel = "birch"\n')  # the grader's, not read by the build
    shutil.copytree(good, flawed)
    shutil.copyfile(GAMES / "blank" / "index.html", flawed / "index.html")  # a blank page: its checks fail
    page = (good / "index.html").read_text()
    shutil.copytree(good, near)
    (near / "index.html").write_text(page + " ")  # one byte more
    built, items, output, scratch = grade(pytester, request, monkeypatch, [good, flawed, twin, near])
    assert built == ["good", "flawed", "near"], "twin was served good's build, near built for itself"
    assert items["twin"]["build"]["shared_with"] == "good"
    assert items["twin"]["build"]["build_inputs"] == items["good"]["build"]["build_inputs"]
    assert "shared_with" not in items["good"]["build"] and "shared_with" not in items["near"]["build"]
    assert items["twin"]["build"]["steps"] == items["good"]["build"]["steps"], "the step records are shared too"
    assert "build: shared with good" in output
    for name in ("good", "twin", "near"):
        assert items[name]["check[play]"]["outcome"] == "passed", (name, items[name]["check[play]"])
    assert items["flawed"]["check[play]"]["outcome"] == "failed", "a run between two sharers keeps its own verdicts"
    assert not list(scratch.glob("tcab-run-*")), "the shared build folder is removed with its last run"


@pytest.mark.skipif(find_chromium(None) is None, reason=NO_BROWSER_REASON)
@pytest.mark.browser
def test_a_shared_build_that_failed_fails_every_run_that_shares_it(pytester: pytest.Pytester,
                                                                   request: pytest.FixtureRequest,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    runs = write_sweep_suite(pytester.path)
    (runs / "good/index.html").unlink()  # `cp index.html dist/` fails
    shutil.copytree(runs / "good", runs / "again")
    built, items, _, _ = grade(pytester, request, monkeypatch, [runs / "good", runs / "again"])
    assert built == ["good"]
    for name in ("good", "again"):
        assert items[name]["build"]["outcome"] == "failed", items[name]["build"]
        assert items[name]["check[play]"]["outcome"] == "failed"
    assert items["again"]["build"]["shared_with"] == "good"
