"""What an operator decides on, end to end: a sweep of cheap performance runs (an echo module
copied into place) where one model's builds fail half the time, graded by the plugin, shows that
model's catastrophic rate apart from its score by default and within it under
`--tcab-catastrophic=zero`; a baseline that names no group is a usage error before anything is
graded; the terminal ends with the two groups' difference."""

from __future__ import annotations

import json
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
from sweep_suite import RUNS
from sweep_suite import write_sweep_suite

pytestmark = pytest.mark.wasm


@pytest.fixture
def runs(pytester: pytest.Pytester) -> Path:
    """Four runs of `perf` by model `steady` and four by `flaky`, two of whose builds fail (they
    left out the module the build copies into place)."""
    write_sweep_suite(pytester.path)
    folder = pytester.path / "decide"
    for model in ("steady", "flaky"):
        for attempt in range(4):
            run = folder / f"{model}-{attempt}"
            shutil.copytree(pytester.path / RUNS / "perf", run)
            (run / ".tcab/run.toml").write_text(f'case = "perf"\nmodel = "{model}"\nharness = "loop"\n',
                                                encoding="utf-8")
            if model == "flaky" and attempt >= 2:
                shutil.rmtree(run / "prebuilt")
    return folder


def sweep(pytester: pytest.Pytester, runs: Path, out: str, *extra: str) -> tuple[pytest.RunResult, dict[str, Any]]:
    result = pytester.runpytest(*ARGS, f"--tcab-run={runs}", f"--tcab-out={out}", *extra)
    document = json.loads((pytester.path / out / "sweep.json").read_text(encoding="utf-8"))
    return result, document


def cell(document: dict[str, Any], model: str) -> dict[str, Any]:
    return next(entry for entry in document["leaderboard"] if entry["model"] == model)


def test_failed_builds_are_a_rate_apart_by_default_and_zeros_under_the_zero_rule(pytester: pytest.Pytester,
                                                                                 runs: Path) -> None:
    result, apart = sweep(pytester, runs, "apart")
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # the failed builds fail their items
    flaky, steady = cell(apart, "flaky"), cell(apart, "steady")
    assert (flaky["runs"], flaky["mean"], steady["runs"], steady["mean"]) == (2, 1.0, 4, 1.0)
    rate = flaky["catastrophic"]
    assert (rate["rule"], rate["runs"], rate["n"], rate["value"], rate["kinds"]) == (
        "apart", 2, 4, 0.5, {"build failed": 2})
    assert rate["catastrophic_runs"] == ["flaky-2", "flaky-3"] and rate["low"] < 0.5 < rate["high"]
    assert flaky["figure"]["n"] == 2 and flaky["figure"]["incorrect"] == 0  # counted apart, not as incorrect
    assert apart["rules"]["catastrophic"] == "apart"
    text = result.stdout.str()
    assert "2 of 4 catastrophic (build failed; kept out of the score): rate 0.50, Wilson 95%" in text
    assert "perf: loop / flaky - loop / steady: median fuel total +0;" in text  # two groups: their difference
    page = (pytester.path / "apart/index.html").read_text(encoding="utf-8")
    assert "Rule applied: catastrophic runs" in page and "kept out of the figures" in page

    _, zero = sweep(pytester, runs, "zero", "--tcab-catastrophic=zero")
    flaky = cell(zero, "flaky")
    assert (flaky["runs"], flaky["mean"]) == (4, 0.5)  # the two failed builds in the score as 0
    assert flaky["catastrophic"]["rule"] == "zero" and flaky["catastrophic"]["runs"] == 2
    assert flaky["figure"]["incorrect"] == 2 and flaky["pass_rate"]["n"] == 4
    assert "count as 0 in the score" in zero["rules"]["catastrophic_rule"]
    assert "in the score as 0" in (pytester.path / "zero/index.html").read_text(encoding="utf-8")


def test_a_baseline_that_names_no_group_is_a_usage_error_before_grading(pytester: pytest.Pytester,
                                                                        runs: Path) -> None:
    result = pytester.runpytest(*ARGS, f"--tcab-run={runs}", "--tcab-out=out", "--tcab-baseline=loop/stedy")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--tcab-baseline=loop/stedy names no (harness, model) group of the sweep; "
                                 "its groups are loop/flaky, loop/steady*"])
    assert not (pytester.path / "out/sweep.json").exists()  # nothing graded
    wrong = pytester.runpytest(*ARGS, f"--tcab-run={runs}", "--tcab-baseline=steady")
    assert wrong.ret == pytest.ExitCode.USAGE_ERROR
    wrong.stderr.fnmatch_lines(["*'steady' is not HARNESS/MODEL*"])
    pytester.makeini("[pytest]\ntcab_target_width = -1\n")
    ini = pytester.runpytest(*ARGS, f"--tcab-run={runs}")
    assert ini.ret == pytest.ExitCode.USAGE_ERROR
    ini.stderr.fnmatch_lines(["*ini option tcab_target_width = '-1': *a half-width must be a number above 0*"])


def test_a_baseline_compares_each_group_with_it(pytester: pytest.Pytester, runs: Path) -> None:
    _, document = sweep(pytester, runs, "out", "--tcab-baseline=loop/steady", "--tcab-target-width=0.1")
    (entry,) = document["differences"]
    assert (entry["a"]["model"], entry["b"]["model"]) == ("flaky", "steady")
    assert document["rules"]["baseline"] == "loop/steady" and document["rules"]["target_width"] == 0.1
