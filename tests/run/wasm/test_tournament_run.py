"""Adversarial runs end to end through pytest: several runs as one tournament, house controllers,
the items, the outputs, and the same standings from two fresh processes.

The suite is tournament_suite.py's echo game with WAT controllers as produced runs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.tournament_suite import ARGS
from tests.tournament_suite import RUNS
from tests.tournament_suite import write_run
from tests.tournament_suite import write_suite

pytestmark = pytest.mark.wasm


def run_args(*runs: str) -> list[str]:
    return [*ARGS, *(f"--tcab-run={RUNS / run}" for run in runs)]


def tournament(pytester: pytest.Pytester) -> dict[str, Any]:
    data = json.loads((pytester.path / ".tcab/results/results.json").read_text())
    (run,) = data["runs"]
    return run  # type: ignore[no-any-return]


def lit(text: str) -> str:
    return text.replace("[", "[[]")


def test_runs_given_together_play_one_tournament(pytester: pytest.Pytester) -> None:
    write_suite(pytester.path, {"strong": "strong", "weak": "weak"}, house=["loops"], rounds=2)
    result = pytester.runpytest(*run_args("strong", "weak"), "-v")
    result.assert_outcomes(passed=9)
    result.stdout.fnmatch_lines([lit(line) for line in [
        "suite/runs/strong/.tcab/run.toml::build[strong] PASSED*",
        "suite/runs/strong/.tcab/run.toml::build[weak] PASSED*",
        "suite/runs/strong/.tcab/run.toml::match[strong-vs-weak#0] PASSED*",
        "suite/runs/strong/.tcab/run.toml::match[strong-vs-weak#1] PASSED*",
        "suite/runs/strong/.tcab/run.toml::match[strong-vs-house-loops#0] PASSED*",
        "suite/runs/strong/.tcab/run.toml::match[strong-vs-house-loops#1] PASSED*",
        "suite/runs/strong/.tcab/run.toml::match[weak-vs-house-loops#0] PASSED*",
        "suite/runs/strong/.tcab/run.toml::match[weak-vs-house-loops#1] PASSED*",
        "suite/runs/strong/.tcab/run.toml::standings PASSED*",
        "*- tcab -*",
        "echo@v1.0.0#default (echo-tournament): 9 passed",
        "   #  controller             W   D   L   F  pts            fuel",
        "   1  strong                 4   0   0   0   12             *",
        "   2  weak                   2   0   2   0    6             *",
        "   3  house-loops (house)    0   0   4   4    0          *",
    ]])
    run = tournament(pytester)
    assert [(line["name"], line["points"], line["forfeits"]) for line in run["tournament"]["standings"]] == [
        ("strong", 12, 0), ("weak", 6, 0), ("house-loops", 0, 4)]
    assert set(run["tournament"]["modules"]) == {"strong", "weak"}
    items = {item["id"]: item for item in run["items"]}
    match = items["strong-vs-house-loops#0"]["match"]
    assert match["forfeits"]["house-loops"]["kind"] == "out-of-fuel"
    assert match["outcomes"] == {"strong": "win", "house-loops": "loss"}
    log = json.loads(Path(items["strong-vs-weak#0"]["replay"]).read_text())
    assert log["players"] == ["strong", "weak"] and log["result"]["winner"] == "strong"
    assert len(log["frames"]) == log["result"]["ticks"] + 1


def test_a_folder_of_runs_is_one_tournament(pytester: pytest.Pytester) -> None:
    write_suite(pytester.path, {"b-strong": "strong", "a-weak": "weak", "c-garbage": "garbage"})
    result = pytester.runpytest(*ARGS, f"--tcab-run={RUNS}", "--collect-only", "-q")
    result.stdout.fnmatch_lines([lit(line) for line in [
        "*.toml::build[a-weak]", "*.toml::build[b-strong]", "*.toml::build[c-garbage]",
        "*.toml::match[a-weak-vs-b-strong#0]", "*.toml::match[a-weak-vs-c-garbage#0]",
        "*.toml::match[b-strong-vs-c-garbage#0]", "*.toml::standings",
    ]])
    result = pytester.runpytest(*ARGS, f"--tcab-run={RUNS}")
    result.assert_outcomes(passed=7)
    standings = tournament(pytester)["tournament"]["standings"]
    assert [(line["name"], line["wins"], line["losses"], line["forfeits"]) for line in standings] == [
        ("b-strong", 2, 0, 0), ("a-weak", 1, 1, 0), ("c-garbage", 0, 2, 2)]


def test_one_run_is_graded_against_the_house(pytester: pytest.Pytester) -> None:
    write_suite(pytester.path, {"weak": "weak"}, house=["strong"])
    result = pytester.runpytest(*run_args("weak"), "-v")
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines([lit("suite/runs/weak/.tcab/run.toml::match[weak-vs-house-strong#0] PASSED*")])
    standings = tournament(pytester)["tournament"]["standings"]
    assert [(line["name"], line["house"], line["points"]) for line in standings] == [
        ("house-strong", True, 3), ("weak", False, 0)]


def test_one_run_without_a_house_cannot_play(pytester: pytest.Pytester) -> None:
    write_suite(pytester.path, {"weak": "weak"})
    result = pytester.runpytest(*run_args("weak"), "-rf")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines([
        "*_ tcab: standings _*",
        ("a match needs 2 controllers, and this tournament has 1 (weak); pass more runs (--tcab-run given again, or a "
        "folder of runs) or declare house controllers in [match] house")])


def test_a_case_that_declares_variants_plays_a_tournament_per_variant(pytester: pytest.Pytester) -> None:
    write_suite(pytester.path, {"strong": "strong", "weak": "weak"}, variants=["blitz", "marathon"])
    authored = pytester.runpytest(*ARGS, "-p", "no:cacheprovider", "-k", "resolve", "-v")
    authored.assert_outcomes(passed=2, deselected=authored.parseoutcomes()["deselected"])
    authored.stdout.fnmatch_lines([lit("*echo/v1.0.0/test-case.toml::resolve[blitz] PASSED*"),
                                   lit("*echo/v1.0.0/test-case.toml::resolve[marathon] PASSED*")])
    for run in ("strong", "weak"):
        (pytester.path / RUNS / run / ".tcab/run.toml").write_text('case = "echo"\nvariant = "marathon"\n')
    result = pytester.runpytest(*run_args("strong", "weak"))
    result.assert_outcomes(passed=4)
    result.stdout.fnmatch_lines(["echo@v1.0.0#marathon (echo-tournament): 4 passed"])
    played = tournament(pytester)
    assert played["variant"] == "marathon"
    assert [line["name"] for line in played["tournament"]["standings"]] == ["strong", "weak"]


def test_a_controller_that_does_not_build_forfeits_its_matches(pytester: pytest.Pytester) -> None:
    write_suite(pytester.path, {"strong": "strong", "weak": "weak"})
    (pytester.path / RUNS / "weak/prebuilt/controller.wasm").unlink()
    result = pytester.runpytest(*run_args("strong", "weak"), "-rf")
    result.assert_outcomes(passed=3, failed=1)
    result.stdout.fnmatch_lines(["*_ tcab: build[[]weak[]] _*",
                                 "build failed: `mkdir -p target && cp prebuilt/controller.wasm target/c.wasm` exited 1",
                                 "cp: cannot stat 'prebuilt/controller.wasm': No such file or directory"])
    match = {item["id"]: item for item in tournament(pytester)["items"]}["strong-vs-weak#0"]["match"]
    assert match["forfeits"]["weak"]["kind"] == "not-built"
    assert match["winner"] == "strong" and match["ticks"] == 0


def test_a_failing_referee_fails_the_matches_with_its_traceback(pytester: pytest.Pytester) -> None:
    write_suite(pytester.path, {"strong": "strong", "weak": "weak"})
    referee = pytester.path / "suite/test-cases/adversarial/easy/echo/v1.0.0/referee/echo.py"
    referee.write_text(referee.read_text().replace('state["score"][player] += 1', 'state["score"][player] += "1"'))
    result = pytester.runpytest(*run_args("strong", "weak"))
    result.assert_outcomes(passed=2, failed=2)
    result.stdout.fnmatch_lines([
        "*referee echo.py: apply() raised",
        '  File "*referee/echo.py", line 22, in apply',
        "TypeError: unsupported operand type(s) for +=: 'int' and 'str'",
    ])


def test_a_run_of_another_case_is_graded_beside_the_tournament(pytester: pytest.Pytester) -> None:
    write_suite(pytester.path, {"strong": "strong", "weak": "weak"}, house=["loops"])
    other = pytester.path / RUNS / "other"
    write_run(other, "weak")
    (other / ".tcab/run.toml").write_text('case = "nope"\n')
    result = pytester.runpytest(*run_args("strong", "other", "weak"), "-v")
    result.assert_outcomes(passed=6, errors=1)  # the tournament of strong and weak; other fails alone
    result.stdout.fnmatch_lines(["*no case with slug 'nope'*"])
    result.stdout.fnmatch_lines([lit("suite/runs/strong/.tcab/run.toml::match[strong-vs-weak#0] PASSED*")])
