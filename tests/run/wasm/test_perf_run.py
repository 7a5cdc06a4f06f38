"""Performance cases in run mode against real wasmtime: each outcome, end to end through pytest.

Every test assembles a tiny performance suite in the pytester directory whose `[build]` copies a
WAT module, compiled in-process, into place, so no Rust toolchain is needed. The scenarios and
the fuel limit are those of test_wasm.py: correct.wat stays under 600,000 fuel on every case,
wasteful.wat needs about 4.4x as much.
"""

from __future__ import annotations

import hashlib
import json
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pytest_tcab.plugin import WASM_CACHE_OPTION
from pytest_tcab.plugin import WASM_TIMEOUT_OPTION
from pytest_tcab.run.wasm.performance import FUEL_PROPERTY
from pytest_tcab.run.wasm.runner import wasmtime_version

pytestmark = pytest.mark.wasm

WasmFile = Callable[[str], Path]

FUEL_LIMIT = 600_000
MANIFEST = Path("suite/test-cases/performance/easy/mini/v1.0.0/test-case.toml")
RUN = Path("suite/runs/solution")
ARGS = ("--tcab-suite=suite", f"--tcab-run={RUN}", "-p", "no:faulthandler")
"""The inner sessions leave faulthandler alone: its unconfigure re-installs its own SIGFPE,
SIGSEGV and SIGILL handlers over the ones wasmtime installs once per process to turn traps into
errors, and the next trap in this process would then kill it."""
COPY_MODULE = "mkdir -p target && cp prebuilt/solution.wasm target/mini.wasm"


@dataclass(frozen=True)
class Case:
    """A `[[case]]`: its files (input `<stem>.json`, expected `<stem>.out`) and its extra keys."""

    stem: str
    scenario: dict[str, int]
    checksum: int
    """The answer, from the Python reference (example-suite/.../bounce/v1.0.0/tools/gen.py)."""
    keys: str = ""


SMOKE = Case("smoke/three", {"width": 16, "particles": 3, "ticks": 20, "seed": 1}, 3054125481, 'kind = "smoke"')
SHORT = Case("cases/short", {"width": 100, "particles": 50, "ticks": 40, "seed": 5}, 3714142434)
"""correct.wat ~63k fuel, wasteful.wat ~262k: both pass."""
LONG = Case("cases/long", {"width": 100, "particles": 50, "ticks": 200, "seed": 5}, 2822396200, "fuel_runway = 2.5")
"""correct.wat ~292k, wasteful.wat ~1.29M: over the ceiling, within the 2.5x runway."""
TIGHT = Case("cases/tight", {"width": 100, "particles": 50, "ticks": 100, "seed": 9}, 3093342485)
"""correct.wat ~149k, wasteful.wat ~653k: past the ceiling with no runway, so out of fuel."""
DIVIDE = Case("cases/divide", {"width": 0, "particles": 3, "ticks": 1, "seed": 1}, 0)
"""A zero width makes correct.wat's `mod width` divide by zero: a trap."""
CASES = (SMOKE, SHORT, LONG, TIGHT)


def write_run(root: Path, module: Path | None, *, cases: tuple[Case, ...] = CASES, build: str = COPY_MODULE,
              fuel_limit: int = FUEL_LIMIT, max_memory_bytes: int = 1 << 20) -> Path:
    """The suite `root/suite` with case `mini`, and its run `root/suite/runs/solution`."""
    folder = root / MANIFEST.parent
    blocks = "".join(
        f'\n[[case]]\ninput = "{case.stem}.json"\nexpected = "{case.stem}.out"\n{case.keys}\n' for case in cases
    )
    files = {
        "test-case.toml": f"""\
slug = "mini"
name = "Mini bounce"
difficulty = "easy"
tags = []
changelog = "changelog.md"
prompt = "prompt.hbs"
type = "performance"

[build]
install = "true"
build = "{build}"
module = "target/mini.wasm"

[contract]
entry = "simulate"
input = "schemas/input.json"
output = "schemas/output.json"

[sandbox]
fuel_limit = {fuel_limit}
max_memory_bytes = {max_memory_bytes}
{blocks}""",
        "changelog.md": "Introduced.\n",
        "prompt.hbs": "Solve it in {{workspace}}.\n",
        "schemas/input.json": "{}\n",
        "schemas/output.json": "{}\n",
    }
    for case in cases:
        files[f"{case.stem}.json"] = json.dumps(case.scenario) + "\n"
        files[f"{case.stem}.out"] = json.dumps({"checksum": case.checksum}) + "\n"
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    run = root / RUN
    (run / ".tcab").mkdir(parents=True, exist_ok=True)
    (run / ".tcab" / "run.toml").write_text('case = "mini"\n')
    if module is not None:
        (run / "prebuilt").mkdir(exist_ok=True)
        (run / "prebuilt" / "solution.wasm").write_bytes(module.read_bytes())
    return run


def lit(text: str) -> str:
    """`text` as an fnmatch pattern matching itself: item names hold `[`, a character class there."""
    return text.replace("[", "[[]")


def results(pytester: pytest.Pytester) -> dict[str, Any]:
    """The one run of results.json."""
    data = json.loads((pytester.path / ".tcab/results/results.json").read_text())
    (run,) = data["runs"]
    return run  # type: ignore[no-any-return]


def items(run: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """results.json items by their item name (`fuel[long]`)."""
    return {item["nodeid"].rpartition("::")[2]: item for item in run["items"]}


# -- the outcomes -----------------------------------------------------------------------------


def test_correct_module_passes_with_its_fuel(pytester: pytest.Pytester, wasm_file: WasmFile) -> None:
    write_run(pytester.path, wasm_file("correct"))
    result = pytester.runpytest(*ARGS, "-v", "--junitxml=junit.xml")
    result.assert_outcomes(passed=5)
    run = results(pytester)
    by_name = items(run)
    fuel = {case: by_name[f"fuel[{case}]"]["fuel"] for case in ("short", "long", "tight")}
    assert all(0 < figure < FUEL_LIMIT for figure in fuel.values())
    perf = run["performance"]
    assert perf["correct"] and perf["within_ceiling"]
    assert perf["total_fuel"] == sum(fuel.values())
    assert perf["wasmtime"] == wasmtime_version()
    module = (pytester.path / RUN / "prebuilt/solution.wasm").read_bytes()
    assert perf["module_sha256"] == hashlib.sha256(module).hexdigest()
    result.stdout.fnmatch_lines([
        lit("*::fuel[long] PASSED*"),
        (f"  performance: {perf['total_fuel']:,} fuel (wasmtime {wasmtime_version()}, module sha256 "
         f"{perf['module_sha256'][:12]})"),
    ])
    # The fuel rides on user_properties, so JUnit carries it (and xdist would too).
    cases = {case.get("name"): case for case in ET.parse(pytester.path / "junit.xml").iter("testcase")}
    properties = cases["fuel[long]"].findall("properties/property")
    assert (FUEL_PROPERTY, str(fuel["long"])) in [(p.get("name"), p.get("value")) for p in properties]


def test_pass_over_ceiling_and_fail_side_by_side(pytester: pytest.Pytester, wasm_file: WasmFile) -> None:
    write_run(pytester.path, wasm_file("wasteful"))
    result = pytester.runpytest(*ARGS, "-v", "--junitxml=junit.xml")
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # over-ceiling is not a pass
    run = results(pytester)
    by_name = items(run)
    long_fuel = by_name["fuel[long]"]["fuel"]
    assert FUEL_LIMIT < long_fuel <= FUEL_LIMIT * 2.5
    result.stdout.fnmatch_lines([
        lit("*::build PASSED*"),
        lit("*::correctness[three] PASSED*"),
        lit("*::fuel[short] PASSED*"),
        lit("*::fuel[long] OVER-CEILING*"),
        lit("*::fuel[tight] FAILED*"),
        "ran out of the runway: spent all 600,000 fuel (fuel_limit 600,000 x fuel_runway 1) without answering",
        f"  fuel long: {long_fuel:,} (over-ceiling)",
        "*- over the fuel ceiling -*",
        lit(f"OVER-CEILING {RUN.as_posix()}/.tcab/run.toml::fuel[long] - {long_fuel:,} fuel is past the ceiling of 600,000 "
            f"({long_fuel / FUEL_LIMIT:.2f}x; the runway allows 1,500,000)"),
        "*= 1 failed, 3 passed, 1 over-ceiling in *",
    ])
    (failure,) = [case.find("failure") for case in ET.parse(pytester.path / "junit.xml").iter("testcase")
                  if case.get("name") == "fuel[long]"]
    assert failure is not None
    assert failure.get("message", "").startswith(f"over-ceiling: {long_fuel:,} fuel is past the ceiling")
    assert [by_name[f"fuel[{c}]"]["outcome"] for c in ("short", "long", "tight")] == [
        "passed", "over-ceiling", "failed"]
    assert run["counts"] == {"failed": 1, "over-ceiling": 1, "passed": 3}
    perf = run["performance"]
    assert perf["total_fuel"] is None and not perf["correct"]
    assert perf["cases"]["long"] == {"outcome": "over-ceiling", "fuel": long_fuel, "fuel_limit": FUEL_LIMIT}


def test_over_ceiling_alone_is_correct_but_earns_no_total(pytester: pytest.Pytester, wasm_file: WasmFile) -> None:
    write_run(pytester.path, wasm_file("wasteful"), cases=(SMOKE, SHORT, LONG))
    pytester.runpytest(*ARGS).assert_outcomes(passed=3, failed=0)  # over-ceiling is its own word
    perf = results(pytester)["performance"]
    assert perf["correct"] and not perf["within_ceiling"]
    assert perf["total_fuel"] is None


def test_wrong_answer_fails_smoke_and_skips_stress(pytester: pytest.Pytester, wasm_file: WasmFile) -> None:
    write_run(pytester.path, wasm_file("wrong"))
    result = pytester.runpytest(*ARGS, "-rs")
    result.assert_outcomes(passed=1, failed=1, skipped=3)
    result.stdout.fnmatch_lines([
        "wrong answer for smoke/three.json: it differs from smoke/three.out at byte 12 (got 23 bytes, expected 25)",
        '  got:      {"checksum":1449913123}',
        '  expected: {"checksum": 3054125481}\\n',
        # Each skip at its own stress case's line of the manifest.
        *[lit(f"SKIPPED [1] suite/*/test-case.toml:{line}: not run: smoke failed (correctness[three])")
          for line in ("*", "*", "*")],
    ])
    run = results(pytester)
    # Skipped in the terminal, which says why; counted as failed where the result is read.
    assert {item["id"]: item["outcome"] for item in run["items"]} == {
        "build": "passed", "three": "failed", "short": "failed", "long": "failed", "tight": "failed"}
    assert items(run)["fuel[long]"]["message"] == "not run: smoke failed (correctness[three])"
    assert run["performance"]["total_fuel"] is None and not run["performance"]["correct"]


def test_strict_fails_unmeasured_stress_cases(pytester: pytest.Pytester, wasm_file: WasmFile) -> None:
    write_run(pytester.path, wasm_file("wrong"))
    result = pytester.runpytest(*ARGS, "--tcab-strict")
    result.assert_outcomes(passed=1, failed=4)
    result.stdout.fnmatch_lines([lit("*not run: smoke failed (correctness[three]) (--tcab-strict)")])


def test_wrong_stress_answer_fails(pytester: pytest.Pytester, wasm_file: WasmFile) -> None:
    write_run(pytester.path, wasm_file("wrong"), cases=(SHORT,))
    result = pytester.runpytest(*ARGS)
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["wrong answer for cases/short.json: it differs from cases/short.out at byte 12 *"])
    assert items(results(pytester))["fuel[short]"]["fuel"] > 0  # measured, shown, never totalled


def test_trap_fails_with_its_cause(pytester: pytest.Pytester, wasm_file: WasmFile) -> None:
    write_run(pytester.path, wasm_file("correct"), cases=(SHORT, DIVIDE))
    result = pytester.runpytest(*ARGS)
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(["simulate trapped: integer divide by zero"])


def test_endless_module_runs_out_of_the_runway(pytester: pytest.Pytester, wasm_file: WasmFile) -> None:
    write_run(pytester.path, wasm_file("endless"), cases=(LONG,))
    result = pytester.runpytest(*ARGS)
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines([
        "ran out of the runway: spent all 1,500,000 fuel (fuel_limit 600,000 x fuel_runway 2.5) without answering"])
    assert items(results(pytester))["fuel[long]"]["fuel"] == 1_500_000


def test_endless_module_is_stopped_by_the_wall_clock(pytester: pytest.Pytester, wasm_file: WasmFile) -> None:
    # A budget no machine spends in a fraction of a second: only the wall clock can stop it.
    write_run(pytester.path, wasm_file("endless"), cases=(SHORT,), fuel_limit=10**15)
    result = pytester.runpytest(*ARGS, f"{WASM_TIMEOUT_OPTION}=0.3")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["simulate was stopped at the wall-clock limit of 0.3 s"])


def test_memory_past_the_cap_fails(pytester: pytest.Pytester, wasm_file: WasmFile) -> None:
    write_run(pytester.path, wasm_file("memory-hog"), cases=(SHORT,), max_memory_bytes=4 * 65536)
    result = pytester.runpytest(*ARGS)
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["simulate asked for memory past max_memory_bytes (327,680 bytes asked, cap 262,144), was refused, then trapped: *"])


# -- the build --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("module", "problem"),
    [
        ("imports", "the module imports env.log, but a performance module must import nothing"),
        ("no-alloc", "the module does not export `alloc` (expected alloc(i32) -> i32)"),
        ("bad-signature", "`alloc(i64) -> i32` has the wrong signature (expected alloc(i32) -> i32)*"),
    ],
    ids=["imports", "no-alloc", "bad-signature"],
)
def test_rejected_module_fails_the_build(pytester: pytest.Pytester, wasm_file: WasmFile, module: str,
                                         problem: str) -> None:
    write_run(pytester.path, wasm_file(module))
    result = pytester.runpytest(*ARGS)
    result.assert_outcomes(failed=5)
    result.stdout.fnmatch_lines([f"target/mini.wasm is rejected: {problem}"])
    messages = [item["message"] for item in results(pytester)["items"] if item["kind"] != "build"]
    assert len(messages) == 4
    assert all(m.startswith("not run: build failed (target/mini.wasm is rejected: ") for m in messages)


def test_failing_build_command_fails_every_item(pytester: pytest.Pytester, wasm_file: WasmFile) -> None:
    write_run(pytester.path, wasm_file("correct"), build="echo no compiler here >&2; exit 3")
    result = pytester.runpytest(*ARGS)
    result.assert_outcomes(failed=5)
    result.stdout.fnmatch_lines([
        "build failed: `echo no compiler here >&2; exit 3` exited 3",
        "no compiler here",
        "*not run: build failed (build failed: `echo no compiler here >&2; exit 3` exited 3)",
    ])
    run = results(pytester)
    assert run["counts"] == {"failed": 5}
    assert run["performance"]["total_fuel"] is None


def test_missing_module_names_what_the_build_left(pytester: pytest.Pytester, wasm_file: WasmFile) -> None:
    write_run(pytester.path, wasm_file("correct"), build="mkdir -p target/other && cp prebuilt/solution.wasm target/other/")
    result = pytester.runpytest(*ARGS)
    result.assert_outcomes(failed=5)
    result.stdout.fnmatch_lines([
        lit("the build wrote no module at [build].module = 'target/mini.wasm'; the build left "
            "prebuilt/solution.wasm, target/other/solution.wasm")])


def test_second_session_loads_the_module_from_the_cache(pytester: pytest.Pytester, wasm_file: WasmFile) -> None:
    write_run(pytester.path, wasm_file("correct"))
    cache = pytester.path / "compiled"
    loads = []
    for _ in range(2):
        pytester.runpytest(*ARGS, f"{WASM_CACHE_OPTION}={cache}").assert_outcomes(passed=5)
        build = items(results(pytester))["build"]
        loads.append((build["module_cached"], build["message"]))
    assert loads == [(False, "built target/mini.wasm, loaded from a fresh compile"),
                     (True, "built target/mini.wasm, loaded from the cache")]
    assert len(list(cache.glob("*.cwasm"))) == 1


# -- items ------------------------------------------------------------------------------------


def test_items_point_at_their_case_lines(pytester: pytest.Pytester, wasm_file: WasmFile) -> None:
    write_run(pytester.path, wasm_file("correct"))
    found, _ = pytester.inline_genitems(*ARGS)
    lines = (pytester.path / MANIFEST).read_text().splitlines()
    where = {item.name: item.declared_at() for item in found}
    assert list(where) == ["build", "correctness[three]", "fuel[short]", "fuel[long]", "fuel[tight]"]
    assert all(path == pytester.path / MANIFEST for path, _ in where.values())
    headers = {index + 1: line for index, line in enumerate(lines) if line.startswith("[")}
    assert [headers.get(line or 0) for _, line in where.values()] == ["[build]"] + ["[[case]]"] * 4
    assert len({line for _, line in where.values()}) == 5
    # What an IDE opens is the file the ids name: the run's run.toml.
    assert {item.reportinfo()[0] for item in found} == {pytester.path / "suite/runs/solution/.tcab/run.toml"}


def test_under_xdist_the_figures_reach_the_controller(pytester: pytest.Pytester, wasm_file: WasmFile) -> None:
    write_run(pytester.path, wasm_file("wasteful"))
    result = pytester.runpytest_subprocess(*ARGS, "-n", "2", "-p", "xdist")
    result.stdout.fnmatch_lines([
        lit("OVER-CEILING suite/runs/solution/.tcab/run.toml::fuel[long] - 1,288,* fuel is past the ceiling of 600,000 *"),
        "*= 1 failed, 3 passed, *1 over-ceiling in *",
    ])
    run = results(pytester)
    assert items(run)["fuel[long]"]["outcome"] == "over-ceiling"
    assert items(run)["fuel[short]"]["fuel"] > 0
    assert run["performance"]["wasmtime"] == wasmtime_version()
