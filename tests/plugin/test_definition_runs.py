"""`--tcab-run` on test-suite definitions: performance and code-producing ones end to end, and
the types run mode cannot validate yet refused with one message.

Each test writes the minimal test-suite layout (definition_suite.py) into the pytester
directory, swaps in build and toolchain commands that need only a shell, and validates a run
folder beside it. The performance run builds by copying a WAT module compiled in-process, so no
Rust toolchain is needed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from definition_suite import GAME
from definition_suite import PERF
from definition_suite import write_definition_suite

SUITE = Path("suite")
RUN = Path("run")
ARGS = ("-p", "no:cacheprovider", f"--tcab-suite={SUITE}", f"--tcab-run={RUN}", "--tcab-out=out")

ECHO_WAT = """\
(module
  (memory (export "memory") 1)
  (global $heap (mut i32) (i32.const 1024))
  (func (export "alloc") (param $len i32) (result i32)
    (local $ptr i32)
    (local.set $ptr (global.get $heap))
    (global.set $heap (i32.add (local.get $ptr) (local.get $len)))
    (local.get $ptr))
  (func (export "run") (param $ptr i32) (param $len i32) (result i64)
    (i64.or (i64.shl (i64.extend_i32_u (local.get $ptr)) (i64.const 32))
            (i64.extend_i32_u (local.get $len)))))
"""
"""Answers its input unchanged: a case whose expected answer is its own input passes."""

PERF_DEFINITION = """\
name = "Echo"
type = "performance"
difficulty = "easy"
prompt = "prompts/p.hbs"
workspace = "workspaces/crate"

[build]
install = "true"
build = "cp prebuilt/echo.wasm echo.wasm"
module = "echo.wasm"

[contract]
entry = "run"
input = "perf/in.json"
output = "perf/out.json"

[sandbox]
fuel_limit = 100_000
max_memory_bytes = 1_048_576

[[case]]
input = "cases/tiny.json"
expected = "cases/tiny.json"
kind = "smoke"

[[case]]
input = "cases/big.json"
expected = "cases/big.json"
"""

PASSING_TYPECHECK = "test -f dist/index.html && echo types ok"
"""Passes only where the build left its output: the toolchain runs in the built copy."""
FAILING_TYPECHECK = "echo 'src/main.ts(3,7): error TS2322: not a number' >&2; exit 2"
FAILING_LINT = "echo 'src/main.ts: 2 problems'; exit 1"


def game_definition(typecheck: str, *, build: str = "mkdir -p dist && cp index.html dist/",
                    extra: str = "") -> str:
    """The end-to-end definition `game`, building with a shell command, with `typecheck` and `extra`."""
    return f"""\
name = "Game"
type = "end-to-end"
difficulty = "easy"
engines = ["none", "simple-2d"]
specifications = ["core"]
prompt = "prompts/p.hbs"

[workspaces]
none = "workspaces/none"
simple-2d = "workspaces/s2d"

[build]
install = "true"
build = "{build}"

[toolchain]
typecheck = "{typecheck}"
{extra}"""


def write(root: Path, files: dict[Path, str | bytes]) -> None:
    for relative, content in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")


def project(root: Path, run_toml: str, *, game: str | None = None, under: Path = Path()) -> None:
    """The suite (with `game` as the end-to-end definition when given, its test suite in
    `under`) and a run naming `run_toml`."""
    write_definition_suite(root / SUITE, under)
    if game is not None:
        write(root / SUITE / under, {GAME: game})
    write(root / RUN, {Path(".tcab/run.toml"): run_toml, Path("index.html"): "<!doctype html><title>game</title>\n"})


def the_run(root: Path) -> dict[str, Any]:
    (only,) = json.loads((root / "out/results.json").read_text(encoding="utf-8"))["runs"]
    return only  # type: ignore[no-any-return]


def by_name(run: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {item["nodeid"].rpartition("::")[2]: item for item in run["items"]}


def lit(*patterns: str) -> list[str]:
    """fnmatch patterns where `[` is literal (node ids are full of them); `*` stays a wildcard."""
    return [pattern.replace("[", "[[]") for pattern in patterns]


def perf_project(root: Path, under: Path = Path()) -> None:
    """The suite with the echo performance definition `perf` (its test suite in `under`) and a run of it."""
    import wasmtime

    project(root, 'case = "perf"\n', under=under)
    write(root / SUITE / under, {
        PERF: PERF_DEFINITION,
        PERF.parent.parent / "cases/tiny.json": '{"n": 1}\n',
        PERF.parent.parent / "cases/big.json": json.dumps({"n": list(range(200))}) + "\n",
    })
    write(root / RUN, {Path("prebuilt/echo.wasm"): bytes(wasmtime.wat2wasm(ECHO_WAT))})


@pytest.mark.wasm
@pytest.mark.parametrize("under", [Path(), Path("games/echo")], ids=["flat", "nested"])
def test_a_performance_definition_runs_as_a_performance_case(pytester: pytest.Pytester, under: Path) -> None:
    perf_project(pytester.path, under)
    result = pytester.runpytest(*ARGS, "-v")
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(lit("run/.tcab/run.toml::build PASSED*", "run/.tcab/run.toml::correctness[tiny] PASSED*", "run/.tcab/run.toml::fuel[big] PASSED*",
                                    "perf@v1.0.0:none (run): 3 passed"))
    run = the_run(pytester.path)
    assert {key: run[key] for key in ("case", "version", "engine", "layout")} == {
        "case": "perf", "version": "v1.0.0", "engine": "none", "layout": "definition"}
    perf = run["performance"]
    assert perf["correct"] and perf["within_ceiling"]
    assert perf["total_fuel"] == by_name(run)["fuel[big]"]["fuel"] > 0


@pytest.mark.wasm
@pytest.mark.parametrize(("given", "items"), [
    ("run", ["build", "correctness[tiny]", "fuel[big]"]),
    ("run/.tcab/run.toml", ["build", "correctness[tiny]", "fuel[big]"]),
    ("run/.tcab/run.toml::fuel[big]", ["fuel[big]"]),
], ids=["folder", "run-toml", "node-id"])
def test_a_run_given_as_a_path_is_graded_as_with_tcab_run(pytester: pytest.Pytester, given: str,
                                                          items: list[str]) -> None:
    perf_project(pytester.path, Path("games/echo"))
    result = pytester.runpytest("-p", "no:cacheprovider", f"--tcab-suite={SUITE}", "--tcab-out=out", given, "-v")
    result.assert_outcomes(passed=len(items))
    result.stdout.fnmatch_lines(lit(*(f"run/.tcab/run.toml::{item} PASSED*" for item in items)))
    assert the_run(pytester.path)["case"] == "perf"
    if len(items) == 1:  # the build item not selected: the summary says no module was recorded
        result.stdout.fnmatch_lines(["  performance: * fuel (no build item selected, so no module recorded)"])


@pytest.mark.parametrize("passing", [True, False], ids=["typecheck-passes", "typecheck-fails"])
def test_an_end_to_end_definition_builds_then_typechecks(pytester: pytest.Pytester, passing: bool) -> None:
    project(pytester.path, 'case = "game"\nengine = "simple-2d"\n',
            game=game_definition(PASSING_TYPECHECK if passing else FAILING_TYPECHECK))
    result = pytester.runpytest(*ARGS, "-v")
    run = the_run(pytester.path)
    items = by_name(run)
    # The spec's one requirement has no validators: it is left for the reviewer (test_requirement_runs.py).
    assert list(items) == ["build", "requirement[works]", "toolchain[typecheck]"]
    assert run["engine"] == "simple-2d"
    if passing:
        result.assert_outcomes(passed=2, skipped=1)
        result.stdout.fnmatch_lines(lit("run/.tcab/run.toml::toolchain[typecheck] PASSED*",
                                        "game@v1.0.0:simple-2d (run): 2 passed, 1 skipped"))
        assert items["toolchain[typecheck]"]["output"] == "types ok"
        assert run["toolchain"]["broken"] is False
        return
    result.assert_outcomes(passed=1, failed=1, skipped=1)
    result.stdout.fnmatch_lines(lit(
        "run/.tcab/run.toml::toolchain[typecheck] FAILED*",
        "*_ tcab: toolchain[typecheck] _*",
        f"typecheck failed: `{FAILING_TYPECHECK}` exited 2: a failing typecheck rates the run broken",
        "src/main.ts(3,7): error TS2322: not a number",
        "  toolchain typecheck: exit 2 (failed)",
        "  toolchain: the run is rated broken (typecheck did not pass)",
    ))
    assert "Traceback" not in result.stdout.str()
    assert items["toolchain[typecheck]"]["returncode"] == 2
    assert run["toolchain"] == {"broken": True, "steps": {"typecheck": {
        "outcome": "failed", "required": True, "command": FAILING_TYPECHECK, "returncode": 2}}}


@pytest.mark.parametrize("strict", [False, True], ids=["default", "strict"])
def test_a_failing_lint_is_recorded_not_gating(pytester: pytest.Pytester, strict: bool) -> None:
    extra = f'lint = "{FAILING_LINT}"\nformat = "true"\n'
    project(pytester.path, 'case = "game"\n', game=game_definition(PASSING_TYPECHECK, extra=extra))
    result = pytester.runpytest(*ARGS, "-v", "--junitxml=junit.xml", "-k", "not requirement",
                                *(["--tcab-strict"] if strict else []))
    # Recorded is its own word, never a failure: not even --tcab-strict makes lint gate the run.
    assert result.ret == pytest.ExitCode.OK
    assert result.parseoutcomes() == {"passed": 3, "recorded": 1, "deselected": 1}
    result.stdout.fnmatch_lines(lit(
        "run/.tcab/run.toml::toolchain[typecheck] PASSED*",
        "run/.tcab/run.toml::toolchain[lint] RECORDED*",
        "run/.tcab/run.toml::toolchain[format] PASSED*",
        "game@v1.0.0:none (run): 3 passed, 1 recorded",
        "  toolchain lint: exit 1 (recorded)",
        "*- recorded, not gating -*",
        f"RECORDED run/.tcab/run.toml::toolchain[lint] - `{FAILING_LINT}` exited 1",
        "1 recorded: only typecheck rates a run broken; the exit code and output of the others are in results.json",
        "*= 3 passed, 1 deselected, 1 recorded in *",
    ))
    run = the_run(pytester.path)
    lint = by_name(run)["toolchain[lint]"]
    assert {key: lint[key] for key in ("outcome", "returncode", "output", "message")} == {
        "outcome": "recorded", "returncode": 1, "output": "src/main.ts: 2 problems",
        "message": f"recorded: `{FAILING_LINT}` exited 1"}
    assert run["toolchain"]["broken"] is False
    assert [step["outcome"] for step in run["toolchain"]["steps"].values()] == ["passed", "recorded", "passed"]
    junit = (pytester.path / "junit.xml").read_text(encoding="utf-8")
    assert f'<skipped type="pytest.skip" message="recorded: `{FAILING_LINT}` exited 1"' in junit


def test_a_broken_build_leaves_the_toolchain_not_run(pytester: pytest.Pytester) -> None:
    game = game_definition(PASSING_TYPECHECK, build="exit 4", extra=f'lint = "{FAILING_LINT}"\n')
    project(pytester.path, 'case = "game"\n', game=game)
    result = pytester.runpytest(*ARGS, "-v")
    result.assert_outcomes(failed=3, skipped=1)  # the requirement without validators is the reviewer's
    result.stdout.fnmatch_lines(lit("*_ tcab: toolchain[lint] _*", "not run: build failed (build failed: `exit 4` exited 4)"))
    assert the_run(pytester.path)["toolchain"]["broken"] is True


@pytest.mark.parametrize(
    ("run_toml", "option", "message"),
    [
        ('case = "game"\nengine = "unreal"\n', None,
         "definition 'game' does not declare engine 'unreal'; its engines: none, simple-2d (pick one with :ENGINE)"),
        ('case = "game"\n', "--tcab-case=game@v9.0.0",
         "definition 'game' has no version 'v9.0.0'; known versions: v1.0.0"),
        ('case = "game"\n', "--tcab-case=game#base", "definition 'game' has no variants (got #base)"),
        ('case = "perf"\nengine = "simple-2d"\n', None,
         "definition 'perf' does not declare engine 'simple-2d'; its engines: none (pick one with :ENGINE)"),
    ],
    ids=["engine", "version", "variant", "perf-engine"],
)
def test_a_definition_run_that_cannot_be_validated_is_a_collection_error(
    pytester: pytest.Pytester, run_toml: str, option: str | None, message: str
) -> None:
    project(pytester.path, run_toml)
    result = pytester.runpytest(*ARGS, *([option] if option else []))
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(lit("*_ ERROR collecting run _*", message))
    assert "Traceback" not in result.stdout.str()
