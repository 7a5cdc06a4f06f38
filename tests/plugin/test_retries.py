"""Retries on record: a verdict the grader could not grade (no judge runtime, once, a fault of the
tests' own making that no build can reach) is graded on its next attempt under `--tcab-retries`,
with every attempt in results.json, the sweep row and the JUnit file; what a run's build or page
causes, its failure, is never retried, however it dresses itself up."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from typing import Any

import pytest

from tests.run.judge.hostile_suite import NEEDS_BROWSER_AND_JUDGE
from tests.validation import edit
from tests.validation import gauge_project

pytestmark = NEEDS_BROWSER_AND_JUDGE

FAULT_ONCE = '''
"""Test-only: the first search for Node in this process finds none (the judge runtime unavailable once)."""
from pytest_tcab.run.judge import runtime

_real = runtime.find_node
_calls = []


def _once():
    _calls.append(1)
    return None if len(_calls) == 1 else _real()


def pytest_configure(config):
    runtime.find_node = _once
    # No warm-up during the build: it would take the one fault, and its failure is not the item's.
    runtime.JudgeRuntime.warm = lambda self: None
'''
"""Loaded with `-p fault_once` from the test's own folder: outside every run's tree and sandbox."""
COUNTS, DOUBLES = "validate[counts]", "validate[doubles]"


NO_NODE_EVER = (
    "from pytest_tcab.run.judge import runtime\n\n\ndef pytest_configure(config):\n"
    "    runtime.find_node = lambda: None\n"
)
"""Test-only: this process never finds Node (retries run out)."""
FAULTS = {"fault_once": FAULT_ONCE, "no_node": NO_NODE_EVER}


def _grade(pytester: pytest.Pytester, *args: str, fault: str | None = "fault_once") -> pytest.RunResult:
    faults = []
    if fault is not None:
        (pytester.path / f"{fault}.py").write_text(FAULTS[fault])
        faults = ["-p", fault]
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", *faults, "--tcab-suite=suite",
                                         "--tcab-run=game", "--tcab-out=out", "--junitxml=junit.xml",
                                         "-k", "counts or doubles", *args)


def _items(pytester: pytest.Pytester) -> dict[str, dict[str, Any]]:
    run = json.loads((pytester.path / "out/results.json").read_text())["runs"][0]
    return {f"{item['kind']}[{item['id']}]": item for item in run["items"]}


def _testcases(pytester: pytest.Pytester) -> dict[str, ET.Element]:
    root = ET.parse(pytester.path / "junit.xml").getroot()
    return {case.get("name", ""): case for case in root.iter("testcase")}


@pytest.mark.parametrize("workers", [0, 2], ids=["serial", "n2"])
def test_a_verdict_not_graded_once_is_graded_on_its_retry(pytester: pytest.Pytester, workers: int) -> None:
    gauge_project(pytester.path)
    xdist = ("-n", str(workers)) if workers else ("-p", "no:xdist")
    result = _grade(pytester, "--tcab-retries=1", "-x", *xdist)
    # counts passed on its second attempt; doubles failed honestly, once, and -x stopped there
    stopped = pytest.ExitCode.INTERRUPTED if workers else pytest.ExitCode.TESTS_FAILED  # as xdist says -x
    assert result.ret == stopped, result.stdout.str()
    result.assert_outcomes(passed=1, failed=1)
    items = _items(pytester)
    first = items[COUNTS]
    assert first["outcome"] == "passed" and "not_graded" not in first
    assert [(attempt["attempt"], attempt["outcome"]) for attempt in first["attempts"]] == [(1, "failed"), (2, "passed")]
    assert "no Node was found" in first["attempts"][0]["not_graded"]
    assert items[DOUBLES]["outcome"] == "failed" and "attempts" not in items[DOUBLES]  # a graded failure
    run = json.loads((pytester.path / "out/results.json").read_text())["runs"][0]
    assert [(attempt["attempt"], attempt["status"]) for attempt in run["attempts"]] == [(1, "not graded"), (2, "graded")]
    assert "no Node was found" in run["attempts"][0]["not_graded"][0]
    cases = _testcases(pytester)
    flaky = cases[COUNTS].findall("flakyFailure")
    assert len(flaky) == 1 and "no Node was found" in flaky[0].get("message", "")
    assert flaky[0].find("stackTrace") is not None and cases[COUNTS].find("failure") is None
    assert cases[DOUBLES].find("failure") is not None
    assert not [element for case in cases.values() for element in case if "rerun" in element.tag]
    result.stdout.fnmatch_lines(["*attempts: 2 (1: not graded (validation scripts run in the judge runtime*); 2: graded)"])


def test_without_retries_the_fault_leaves_the_verdict_not_graded(pytester: pytest.Pytester) -> None:
    gauge_project(pytester.path)
    result = _grade(pytester, "-p", "no:xdist")
    result.assert_outcomes(failed=2)
    items = _items(pytester)
    assert "no Node was found" in items[COUNTS]["not_graded"] and "attempts" not in items[COUNTS]
    run = json.loads((pytester.path / "out/results.json").read_text())["runs"][0]
    assert [attempt["status"] for attempt in run["attempts"]] == ["not graded"]


def test_retries_run_out_and_say_so(pytester: pytest.Pytester) -> None:
    """Node missing for good: every attempt is kept, the last still not graded; JUnit `<rerunFailure>`s."""
    gauge_project(pytester.path)
    result = _grade(pytester, "-p", "no:xdist", "-k", "counts", "-o", "tcab_retries=2", fault="no_node")
    result.assert_outcomes(failed=1)
    item = _items(pytester)[COUNTS]
    assert [attempt["outcome"] for attempt in item["attempts"]] == ["failed"] * 3
    assert all("no Node was found" in attempt["not_graded"] for attempt in item["attempts"])
    case = _testcases(pytester)[COUNTS]
    assert len(case.findall("rerunFailure")) == 2 and case.find("failure") is not None
    run = json.loads((pytester.path / "out/results.json").read_text())["runs"][0]
    assert [attempt["status"] for attempt in run["attempts"]] == ["not graded"] * 3


@pytest.mark.parametrize("how", ["spoofed", "crashed"])
def test_a_build_cannot_make_itself_retried(pytester: pytest.Pytester, how: str) -> None:
    """What a build's page does is its failure, never "not graded": a page that writes the grader's
    own words into its failure, or crashes its renderer, is graded once under any retries."""
    gauge_project(pytester.path)
    page = pytester.path / "game/index.html"
    if how == "spoofed":
        edit(page, "window.__gauge =", "window.__gauge_unused =")
        hostile = ("window.__gauge = new Proxy({}, {get() { throw new Error("
                   "'not graded: the browser could not start'); }});")
    else:
        hostile = "setTimeout(() => { const a = []; for (;;) a.push(new Array(1e6).fill(1)); }, 50);"
    page.write_text(page.read_text() + f"<script>{hostile}</script>\n")
    result = _grade(pytester, "--tcab-retries=3", "--tcab-page-memory=64MiB", "-p", "no:xdist", fault=None)
    result.assert_outcomes(failed=2)
    items = _items(pytester)
    for key in (COUNTS, DOUBLES):
        assert "attempts" not in items[key] and not items[key].get("not_graded"), items[key]
    run = json.loads((pytester.path / "out/results.json").read_text())["runs"][0]
    assert run["attempts"] == [{"attempt": 1, "session": 1, "status": "graded", "not_graded": []}]
    if how == "crashed":
        result.stdout.fnmatch_lines(["*the page crashed*"])


def test_a_resumed_run_appends_its_attempts(pytester: pytest.Pytester) -> None:
    """`--tcab-resume` grades the run the earlier session left not graded, and keeps that attempt first."""
    gauge_project(pytester.path)
    first = _grade(pytester, "-p", "no:xdist")
    assert first.ret == pytest.ExitCode.TESTS_FAILED
    assert json.loads((pytester.path / "out/results.json").read_text())["runs"][0]["attempts"][0]["status"] == (
        "not graded")
    again = _grade(pytester, "-p", "no:xdist", "--tcab-resume=out", fault=None)
    again.assert_outcomes(passed=1, failed=1)
    run = json.loads((pytester.path / "out/results.json").read_text())["runs"][0]
    assert [(attempt["attempt"], attempt["session"], attempt["status"]) for attempt in run["attempts"]] == [
        (1, 1, "not graded"), (2, 2, "graded")]
    assert "no Node was found" in run["attempts"][0]["not_graded"][0]
    row = json.loads((pytester.path / "out/sweep.json").read_text())["runs"][0]
    assert row["attempts"] == run["attempts"] and row["graded_after_retry"] is True


# -- a grader that agrees with itself: --tcab-regrade ------------------------------------------------------------

UNSEEDED = '''// flaky: deliberately unseeded (Math.random), so its gradings of one build disagree.
export default async (api) => {
  await api.reset();
  return { verdicts: { flaky: Math.random() < 0.5 }, notes: "a coin, not the build" };
};
'''
FLAKY_ITEM = '''
[[review_item]]
id = "flaky"
title = "Flaky"
text = "A script that flips a coin."
weight = 1
validation = { script = "validation/flaky.mjs" }
'''
GRADINGS = 12
"""A fair coin lands the same way 12 times in a row once in 2,048 sessions."""


def _regrade(pytester: pytest.Pytester, *args: str, gradings: int = GRADINGS) -> pytest.RunResult:
    return _grade(pytester, "-p", "no:xdist", f"--tcab-regrade={gradings}", "-k", "counts or doubles or flaky",
                  *args, fault=None)


def test_an_unseeded_script_is_found_unstable_and_earns_nothing(pytester: pytest.Pytester) -> None:
    gauge_project(pytester.path)
    version = pytester.path / "suite/test-cases/end-to-end/easy/gauge/v1.0.0"
    (version / "validation/flaky.mjs").write_text(UNSEEDED)
    (version / "test-case.toml").write_text((version / "test-case.toml").read_text() + FLAKY_ITEM)
    result = _regrade(pytester)
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # a failure of the grader fails the session
    result.assert_outcomes(passed=1, failed=1)  # doubles; flaky is pytest's own category, below
    result.stdout.fnmatch_lines([f"*unstable: graded {GRADINGS} times on one build*",
                                 "*1 failed, 1 passed, * 1 unstable in *"])
    items = _items(pytester)
    flaky = items["validate[flaky]"]
    assert flaky["outcome"] == "unstable" and len(flaky["gradings"]) == GRADINGS
    assert set(flaky["gradings"]) == {"passed", "failed"}
    assert items[COUNTS]["gradings"] == ["passed"] * GRADINGS and items[COUNTS]["outcome"] == "passed"
    assert items[DOUBLES]["gradings"] == ["failed"] * GRADINGS and items[DOUBLES]["outcome"] == "failed"
    score = json.loads((pytester.path / "out/results.json").read_text())["runs"][0]["score"]
    assert score["unstable"] == ["flaky"] and "flaky" not in score["failed"]  # the grader's failure, not the run's
    # Available and unearned (a reviewer may override it, with a note): were it left out of the
    # automated score, a build could raise its score by flipping a point it fails.
    assert "flaky" in score["automated"] and "flaky" not in score["pending"]
    cases = _testcases(pytester)
    assert "unstable" in cases["validate[flaky]"].find("failure").get("message", "")


def test_a_build_cannot_learn_it_is_regraded(pytester: pytest.Pytester) -> None:
    """A page that counts its own gradings (in storage a fresh context does not keep) and passes only
    from its second on fails every grading alike: each grading is its first."""
    gauge_project(pytester.path)
    page = pytester.path / "game/index.html"
    edit(page, "    add(n = 1) { value += n; draw(); return value; },",
         "    add(n = 1) { const seen = Number(localStorage.getItem('seen') || 0) + 1; localStorage.setItem('seen', "
         "String(seen)); value += seen > 1 ? n * 2 : n; draw(); return value; },")
    result = _regrade(pytester, "-k", "doubles", gradings=3)  # no coin here: three gradings say it
    result.assert_outcomes(failed=1)
    doubles = _items(pytester)[DOUBLES]
    assert doubles["outcome"] == "failed" and doubles["gradings"] == ["failed"] * 3


def test_a_build_cannot_be_regraded_until_it_passes(pytester: pytest.Pytester) -> None:
    """A page that flips a coin on a verdict it fails passes some gradings: unstable, never passed,
    and the point earns nothing."""
    gauge_project(pytester.path)
    edit(pytester.path / "game/index.html", "    add(n = 1) { value += n; draw(); return value; },",
         "    add(n = 1) { value += Math.random() < 0.5 ? n + 1 : n; draw(); return value; },")
    result = _regrade(pytester, "-k", "doubles")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    doubles = _items(pytester)[DOUBLES]
    assert doubles["outcome"] == "unstable" and set(doubles["gradings"]) == {"passed", "failed"}
    score = json.loads((pytester.path / "out/results.json").read_text())["runs"][0]["score"]
    assert score["earned"] == 0 and score["unstable"] == ["doubles"] and score["available"] > 0


def test_last_failed_sees_the_retried_verdict_passed(pytester: pytest.Pytester) -> None:
    """`--lf` after a session that retried counts: only the verdict that failed as graded runs again."""
    gauge_project(pytester.path)
    (pytester.path / "fault_once.py").write_text(FAULT_ONCE)
    args = ("-p", "no:xdist", "--tcab-suite=suite", "--tcab-run=game", "--tcab-out=out", "-k", "counts or doubles")
    first = pytester.runpytest_subprocess("-p", "fault_once", "--tcab-retries=1", *args)
    first.assert_outcomes(passed=1, failed=1)
    again = pytester.runpytest_subprocess("--lf", "-v", *args)
    again.assert_outcomes(failed=1)
    again.stdout.fnmatch_lines(["*validate?doubles? FAILED*"])
    assert "validate[counts]" not in again.stdout.str()  # passed on its retry: not a last failure
