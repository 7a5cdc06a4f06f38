"""Under GitHub Actions: every problem an annotation at its file and line (once, also under
pytest-xdist), each session's Markdown appended to the step summary; `--tb=line` one line per
problem, also under pytest-xdist; nothing of it outside GitHub Actions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from suites import LEGACY
from suites import write_minimal_suite
from test_definition_runs import FAILING_LINT
from test_definition_runs import FAILING_TYPECHECK
from test_definition_runs import game_definition
from test_definition_runs import project

from pytest_tcab.github import command
from pytest_tcab.github import escape_data
from pytest_tcab.github import escape_property

MANIFEST = f"{LEGACY.as_posix()}/test-case.toml"
AUTHOR_ANNOTATIONS = [
    (f"::error file={MANIFEST},line=3,title=demo@v1.0.0 resolve[a]::`dificulty`: unknown key `dificulty`"
    "%0AHint: did you mean `difficulty`?"),
    (f"::error file={MANIFEST},line=6,title=demo@v1.0.0 resolve[a]::`prompt`: prompt template 'gone.hbs' "
    "does not exist; expected a file under v1.0.0/"),
]
PROBLEM_LINES = [
    f"{MANIFEST}:3: `dificulty`: unknown key `dificulty`",
    f"{MANIFEST}:6: `prompt`: prompt template 'gone.hbs' does not exist; expected a file under v1.0.0/",
]


def broken_suite(root: Path) -> None:
    """The minimal suite with two problems in one manifest: an unknown key and a missing prompt."""
    write_minimal_suite(root)
    manifest = root / MANIFEST
    manifest.write_text(manifest.read_text().replace('difficulty = "easy"', 'dificulty = "easy"')
                        .replace('prompt = "prompt.hbs"', 'prompt = "gone.hbs"'))


def annotations(result: pytest.RunResult) -> list[str]:
    return [line for line in result.outlines if line.startswith("::")]


def run(pytester: pytest.Pytester, workers: int, *args: str) -> pytest.RunResult:
    if workers:
        return pytester.runpytest_subprocess("-p", "no:cacheprovider", "-n", str(workers), *args)
    return pytester.runpytest("-p", "no:cacheprovider", *args)


@pytest.mark.parametrize("workers", [0, 2])
def test_author_problems_are_annotated_once_at_their_line(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
                                                           workers: int) -> None:
    broken_suite(pytester.path)
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    result = run(pytester, workers, "--tcab-suite=.")
    assert annotations(result) == AUTHOR_ANNOTATIONS


def test_annotation_paths_are_relative_to_the_workspace(pytester: pytest.Pytester,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    (pytester.path / "catalog").mkdir()
    broken_suite(pytester.path / "catalog")
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_WORKSPACE", str(pytester.path))
    result = pytester.runpytest("-p", "no:cacheprovider", "--tcab-suite=catalog", "--rootdir=catalog")
    assert annotations(result) == [line.replace("file=", "file=catalog/") for line in AUTHOR_ANNOTATIONS]


@pytest.mark.parametrize("value", [None, "false"])
def test_no_annotation_outside_github_actions(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
                                              value: str | None) -> None:
    broken_suite(pytester.path)
    summary = pytester.path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    if value is not None:
        monkeypatch.setenv("GITHUB_ACTIONS", value)
    result = pytester.runpytest("-p", "no:cacheprovider", "--tcab-suite=.")
    assert result.parseoutcomes()["failed"] == 1
    assert annotations(result) == []
    assert not summary.exists()


@pytest.mark.parametrize("workers", [0, 2])
def test_tb_line_prints_one_line_per_problem(pytester: pytest.Pytester, workers: int) -> None:
    broken_suite(pytester.path)
    result = run(pytester, workers, "--tcab-suite=.", "--tb=line")
    failures = result.outlines[result.outlines.index(next(line for line in result.outlines if "FAILURES" in line)) + 1:]
    located = [line for line in failures if line.startswith(f"{MANIFEST}:")]
    assert located == PROBLEM_LINES
    assert not [line for line in failures if "Hint:" in line], "--tb=line printed the problems in full"


def test_author_step_summary_is_appended(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    broken_suite(pytester.path)
    summary = pytester.path / "summary.md"
    summary.write_text("# an earlier step\n")
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    pytester.runpytest("-p", "no:cacheprovider", "--tcab-suite=.").assert_outcomes(passed=10, failed=1)
    assert summary.read_text() == (
        "# an earlier step\n"
        "### tcab: author mode\n\n| failed | passed |\n|---:|---:|\n| 1 | 10 |\n\n"
        "**Failing items** (1)\n\n"
        f"- `{MANIFEST}::resolve[a]`: `dificulty`: unknown key `dificulty`\n\n"
    )


RUN_ARGS = ("--tcab-suite=suite", "--tcab-run=run", "--tcab-out=out")


def definition_run(root: Path) -> None:
    project(root, 'case = "game"\n', game=game_definition(FAILING_TYPECHECK, extra=f'lint = "{FAILING_LINT}"\n'))


@pytest.mark.parametrize("workers", [0, 2])
def test_a_failing_run_item_is_annotated_at_its_toml_line(pytester: pytest.Pytester,
                                                          monkeypatch: pytest.MonkeyPatch, workers: int) -> None:
    definition_run(pytester.path)
    game = (pytester.path / "suite/versions/v1.0.0/test-cases/game.toml").read_text().splitlines()
    step = next(number for number, line in enumerate(game, 1) if line.startswith("typecheck = "))
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    result = run(pytester, workers, *RUN_ARGS)
    assert annotations(result) == [
        (f"::error file=suite/versions/v1.0.0/test-cases/game.toml,line={step},"
        "title=game@v1.0.0%3Anone (run) toolchain[typecheck]::"
        "typecheck failed: `echo 'src/main.ts(3,7): error TS2322: not a number' >&2; exit 2` exited 2: a failing typecheck rates the run broken%0A"
        "src/main.ts(3,7): error TS2322: not a number")
    ]


def test_a_run_appends_its_section_to_the_step_summary(pytester: pytest.Pytester,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    definition_run(pytester.path)
    summary = pytester.path / "summary.md"
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    pytester.runpytest("-p", "no:cacheprovider", *RUN_ARGS)
    pytester.runpytest("-p", "no:cacheprovider", *RUN_ARGS, "-k", "toolchain")
    text = summary.read_text()
    first, second = text.split("### tcab: ")[1:]
    assert first.startswith("game@v1.0.0:none (run)\n\n| failed | passed | recorded | skipped |\n"
                            "|---:|---:|---:|---:|\n| 1 | 1 | 1 | 1 |\n\n")
    assert "- toolchain: the run is rated broken (typecheck did not pass)\n" in first
    assert "**Failures** (1)\n\n- `toolchain[typecheck]` (failed)\n\n  ````text\n  typecheck failed:" in first
    assert "  src/main.ts(3,7): error TS2322: not a number\n  ````\n" in first
    assert "Partial run: 2 items deselected (not run, not scored)." in second


def test_workflow_commands_escape_as_github_reads_them() -> None:
    assert escape_data("100% done\r\nnext, then: end") == "100%25 done%0D%0Anext, then: end"
    assert escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"
    annotation = {"file": "/ws/a,b.toml", "line": None, "title": "t: x", "message": "m"}
    assert command(annotation, Path("/ws")) == "::error file=a%2Cb.toml,title=t%3A x::m"
    assert command({**annotation, "file": "/elsewhere/c.toml"}, Path("/ws")).startswith(
        "::error file=/elsewhere/c.toml,")


@pytest.mark.wasm
def test_a_performance_run_summary_lists_fuel_per_case(pytester: pytest.Pytester,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    import wasmtime
    from definition_suite import PERF
    from test_definition_runs import ECHO_WAT
    from test_definition_runs import PERF_DEFINITION
    from test_definition_runs import write

    project(pytester.path, 'case = "perf"\n')
    write(pytester.path / "suite", {
        PERF: PERF_DEFINITION,
        PERF.parent.parent / "cases/tiny.json": '{"n": 1}\n',
        PERF.parent.parent / "cases/big.json": json.dumps({"n": list(range(200))}) + "\n",
    })
    write(pytester.path / "run", {Path("prebuilt/echo.wasm"): bytes(wasmtime.wat2wasm(ECHO_WAT))})
    summary = pytester.path / "summary.md"
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    result = pytester.runpytest("-p", "no:cacheprovider", *RUN_ARGS)
    result.assert_outcomes(passed=3)
    assert annotations(result) == []
    fuel = json.loads((pytester.path / "out/results.json").read_text())["runs"][0]["performance"]["total_fuel"]
    text = summary.read_text()
    assert f"- performance: {fuel:,} fuel (wasmtime " in text
    assert f"| case | fuel | ceiling | outcome |\n|---|---:|---:|---|\n| big | {fuel:,} | 100,000 | passed |\n" in text


@pytest.mark.parametrize("workers", [0, 2])
def test_tb_line_prints_a_run_failure_as_one_line_and_results_keep_it_whole(pytester: pytest.Pytester,
                                                                           workers: int) -> None:
    definition_run(pytester.path)
    game = (pytester.path / "suite/versions/v1.0.0/test-cases/game.toml").read_text().splitlines()
    step = next(number for number, line in enumerate(game, 1) if line.startswith("typecheck = "))
    result = run(pytester, workers, *RUN_ARGS, "--tb=line")
    failures = result.outlines[result.outlines.index(next(line for line in result.outlines if "FAILURES" in line)) + 1:]
    failures = [line for line in failures[:failures.index(next(line for line in failures if line.startswith("---")))]
                if not line.startswith("[gw")]  # pytest-xdist's worker header
    assert failures == [f"{pytester.path}/suite/versions/v1.0.0/test-cases/game.toml:{step}: typecheck failed: "
                        "`echo 'src/main.ts(3,7): error TS2322: not a number' >&2; exit 2` exited 2: a failing "
                        "typecheck rates the run broken"]
    (only,) = json.loads((pytester.path / "out/results.json").read_text())["runs"]
    typecheck = next(item for item in only["items"] if item["nodeid"].endswith("::toolchain[typecheck]"))
    assert typecheck["message"].endswith("src/main.ts(3,7): error TS2322: not a number")
