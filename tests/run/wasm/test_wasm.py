"""pytest_tcab.run.wasm.runner against real wasmtime: every outcome, the ABI checks, fuel and the cache."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path

import pytest
import wasmtime

from pytest_tcab.run.wasm import runner as wasm
from pytest_tcab.run.wasm.runner import ModuleRejected
from pytest_tcab.run.wasm.runner import WasmRunner
from pytest_tcab.run.wasm.runner import answers_match
from pytest_tcab.run.wasm.runner import wasmtime_version

pytestmark = pytest.mark.wasm

REPO = Path(__file__).resolve().parents[3]

SCENARIO = json.dumps({"width": 100, "particles": 50, "ticks": 200, "seed": 5}).encode()
"""The case these tests are designed around: 10,000 particle moves, many wall hits."""
ANSWER = b'{"checksum": 2822396200}'
"""SCENARIO's answer, from the Python reference (example-suite/.../bounce/v1.0.0/tools/gen.py)."""

FUEL_LIMIT = 600_000
"""Between correct.wat (291,921 fuel on SCENARIO) and wasteful.wat (1,288,367)."""
RUNWAY = 2.5
"""Lets wasteful.wat finish on SCENARIO: 1,288,367 <= 600,000 x 2.5."""
MEMORY = 1 << 20
WALL = 30.0

WasmFile = Callable[[str], Path]


def run(
    runner: WasmRunner,
    path: Path,
    data: bytes = SCENARIO,
    fuel_limit: int = FUEL_LIMIT,
    runway: float = 1.0,
    max_memory_bytes: int = MEMORY,
    wall_timeout_s: float = WALL,
) -> wasm.RunResult:
    module = runner.load(path, "simulate")
    return runner.run(
        module, "simulate", data, fuel_limit, runway, max_memory_bytes, wall_timeout_s
    )


# -- outcomes ---------------------------------------------------------------------------------


def test_correct_answers_under_the_limit(runner: WasmRunner, wasm_file: WasmFile) -> None:
    result = run(runner, wasm_file("correct"))
    assert result.outcome == "ok"
    assert result.output == b'{"checksum":2822396200}'
    assert answers_match(result.output, ANSWER)
    assert 0 < result.fuel_consumed < FUEL_LIMIT
    assert result.message == f"simulate answered 23 bytes for {result.fuel_consumed:,} fuel"


def test_wasteful_finishes_on_the_runway(runner: WasmRunner, wasm_file: WasmFile) -> None:
    correct = run(runner, wasm_file("correct"))
    result = run(runner, wasm_file("wasteful"), runway=RUNWAY)
    assert result.outcome == "ok"
    assert result.output is not None and answers_match(result.output, ANSWER)
    # Same answer, past the ceiling but within the runway: what the plugin calls over-ceiling.
    assert FUEL_LIMIT < result.fuel_consumed <= FUEL_LIMIT * RUNWAY
    assert result.fuel_consumed > 3 * correct.fuel_consumed


def test_wasteful_without_runway_runs_out_of_fuel(runner: WasmRunner, wasm_file: WasmFile) -> None:
    result = run(runner, wasm_file("wasteful"))
    assert result.outcome == "out-of-fuel"
    assert result.fuel_consumed == FUEL_LIMIT
    assert result.output is None
    assert result.message == (
        "simulate used up its whole budget of 600,000 fuel (fuel_limit x runway)"
    )


def test_runway_budget_is_floored_exactly(runner: WasmRunner, wasm_file: WasmFile) -> None:
    # 1,000,001 x 1.5 = 1,500,001.5: the budget is the floor of the exact product.
    result = run(runner, wasm_file("endless"), fuel_limit=1_000_001, runway=1.5)
    assert result.outcome == "out-of-fuel"
    assert result.fuel_consumed == 1_500_001


def test_endless_runs_out_of_fuel(runner: WasmRunner, wasm_file: WasmFile) -> None:
    result = run(runner, wasm_file("endless"), fuel_limit=1_000_000)
    assert result.outcome == "out-of-fuel"
    assert result.fuel_consumed == 1_000_000


def test_endless_with_huge_fuel_times_out(runner: WasmRunner, wasm_file: WasmFile) -> None:
    started = time.monotonic()
    result = run(runner, wasm_file("endless"), fuel_limit=10**15, wall_timeout_s=0.2)
    elapsed = time.monotonic() - started
    assert result.outcome == "timeout"
    assert result.output is None
    assert result.message == "simulate was stopped at the wall-clock limit of 0.2 s"
    assert 0.15 <= elapsed < 5.0


def test_wrong_answer_is_ok_but_does_not_match(runner: WasmRunner, wasm_file: WasmFile) -> None:
    result = run(runner, wasm_file("wrong"))
    assert result.outcome == "ok"
    assert result.output is not None
    assert not answers_match(result.output, ANSWER)


def test_trap_names_its_cause(runner: WasmRunner, wasm_file: WasmFile) -> None:
    # A zero width makes the placement's `mod width` divide by zero.
    data = b'{"width": 0, "particles": 3, "ticks": 1, "seed": 1}'
    result = run(runner, wasm_file("correct"), data=data)
    assert result.outcome == "trap"
    assert result.output is None
    assert result.message == "simulate trapped: integer divide by zero"


def test_memory_cap_at_instantiation(runner: WasmRunner, wasm_file: WasmFile) -> None:
    result = run(runner, wasm_file("memory-hog"), max_memory_bytes=65_536)
    assert result.outcome == "memory"
    assert result.fuel_consumed == 0
    assert result.message == (
        "instantiation asked for memory past max_memory_bytes (131,072 bytes asked, cap 65,536): "
        "the module's initial memory does not fit"
    )


def test_memory_cap_on_growth(runner: WasmRunner, wasm_file: WasmFile) -> None:
    result = run(runner, wasm_file("memory-hog"), max_memory_bytes=1 << 20)
    assert result.outcome == "memory"
    assert result.message == (
        "simulate asked for memory past max_memory_bytes (1,114,112 bytes asked, cap 1,048,576), "
        "was refused, then trapped: wasm `unreachable` instruction executed"
    )


def test_memory_cap_on_growth_in_steps(runner: WasmRunner, wasm_file: WasmFile) -> None:
    # 1, 5, 9 pages, then 13 asked with a cap of 12: the memory stops 3 pages short of the cap.
    result = run(runner, wasm_file("memory-steps"), max_memory_bytes=12 * 65536)
    assert result.outcome == "memory"
    assert result.message == (
        "simulate asked for memory past max_memory_bytes (851,968 bytes asked, cap 786,432), "
        "was refused, then trapped: wasm `unreachable` instruction executed"
    )
    # The next run has its own cap and its own record: roomy enough, the refusal is not carried over.
    again = run(runner, wasm_file("memory-steps"), max_memory_bytes=21 * 65536 - 1)
    assert again.message.startswith("simulate asked for memory past max_memory_bytes (1,376,256 bytes asked")


def test_a_refused_grow_that_the_module_survives_is_noted(runner: WasmRunner, wasm_file: WasmFile) -> None:
    result = run(runner, wasm_file("memory-frugal"), max_memory_bytes=1 << 20)
    assert result.outcome == "ok"
    assert result.output == b"{}"
    assert result.message.endswith(
        "(it went on after a refused request for memory past max_memory_bytes (4,259,840 bytes asked, cap 1,048,576))"
    )
    roomy = run(runner, wasm_file("memory-frugal"), max_memory_bytes=8 << 20)
    assert "refused" not in roomy.message


def test_memory_cap_leaves_an_ordinary_trap_alone(runner: WasmRunner, wasm_file: WasmFile) -> None:
    # With room to spare, a trap is a trap, not a memory failure.
    data = b'{"width": 0, "particles": 3, "ticks": 1, "seed": 1}'
    result = run(runner, wasm_file("correct"), data=data, max_memory_bytes=64 << 20)
    assert result.outcome == "trap"


def test_answer_outside_memory_is_no_answer(tmp_path: Path, runner: WasmRunner) -> None:
    path = tmp_path / "far.wasm"
    path.write_bytes(
        bytes(
            wasmtime.wat2wasm(
                """(module
                  (memory (export "memory") 1)
                  (func (export "alloc") (param i32) (result i32) (i32.const 1024))
                  (func (export "simulate") (param i32 i32) (result i64)
                    (i64.const 0x0000_fff0_0000_0064)))"""
            )
        )
    )
    result = run(runner, path)
    assert result.outcome == "ok"
    assert result.output is None
    assert result.message == (
        "simulate returned an answer at 0xfff0 of 100 bytes, outside its memory of 65,536 bytes"
    )


def test_alloc_without_room_for_the_input(tmp_path: Path, runner: WasmRunner) -> None:
    path = tmp_path / "cramped.wasm"
    path.write_bytes(
        bytes(
            wasmtime.wat2wasm(
                """(module
                  (memory (export "memory") 1)
                  (func (export "alloc") (param i32) (result i32) (i32.const 65530))
                  (func (export "simulate") (param i32 i32) (result i64) (i64.const 0)))"""
            )
        )
    )
    result = run(runner, path)
    assert result.outcome == "trap"
    assert result.message == (
        f"alloc({len(SCENARIO)}) returned 0xfffa, which leaves no room for the input "
        "in a memory of 65,536 bytes"
    )


def test_empty_answer(tmp_path: Path, runner: WasmRunner) -> None:
    # The starter crate's shape: an entry that answers (0, 0), an empty and wrong answer.
    path = tmp_path / "starter.wasm"
    path.write_bytes(
        bytes(
            wasmtime.wat2wasm(
                """(module
                  (memory (export "memory") 1)
                  (func (export "alloc") (param i32) (result i32) (i32.const 1024))
                  (func (export "simulate") (param i32 i32) (result i64) (i64.const 0)))"""
            )
        )
    )
    result = run(runner, path)
    assert result.outcome == "ok"
    assert result.output == b""
    assert not answers_match(result.output, ANSWER)


# -- ABI rejections ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "entry", "message"),
    [
        (
            "imports",
            "simulate",
            "the module imports env.log, but a performance module must import nothing",
        ),
        (
            "bad-signature",
            "simulate",
            "`alloc(i64) -> i32` has the wrong signature (expected alloc(i32) -> i32); "
            "`simulate(i32, i32) -> i32` has the wrong signature "
            "(expected simulate(i32, i32) -> i64)",
        ),
        ("no-alloc", "simulate", "the module does not export `alloc` (expected alloc(i32) -> i32)"),
        (
            "correct",
            "run",
            "the module does not export `run` (expected run(i32, i32) -> i64)",
        ),
    ],
)
def test_rejected_modules(
    runner: WasmRunner, wasm_file: WasmFile, name: str, entry: str, message: str
) -> None:
    with pytest.raises(ModuleRejected) as excinfo:
        runner.load(wasm_file(name), entry)
    assert excinfo.value.message == message
    assert str(excinfo.value) == message


def test_rejects_every_problem_at_once(tmp_path: Path, runner: WasmRunner) -> None:
    path = tmp_path / "bare.wasm"
    path.write_bytes(
        bytes(
            wasmtime.wat2wasm(
                """(module
                  (import "env" "log" (func))
                  (import "wasi_snapshot_preview1" "fd_write"
                    (func (param i32 i32 i32 i32) (result i32)))
                  (global (export "alloc") i32 (i32.const 0)))"""
            )
        )
    )
    with pytest.raises(ModuleRejected) as excinfo:
        runner.load(path, "simulate")
    assert excinfo.value.message == (
        "the module imports env.log, wasi_snapshot_preview1.fd_write, but a performance module "
        "must import nothing; the module does not export `memory`; the export `alloc` is not a "
        "function (expected alloc(i32) -> i32); the module does not export `simulate` "
        "(expected simulate(i32, i32) -> i64)"
    )


def test_rejects_text_invalid_and_missing_files(tmp_path: Path, runner: WasmRunner) -> None:
    text = tmp_path / "text.wasm"
    text.write_text("(module)")
    invalid = tmp_path / "invalid.wasm"
    invalid.write_bytes(b"\0asm\x01\0\0\0\x99")
    missing = tmp_path / "missing.wasm"
    messages = []
    for path in (text, invalid, missing):
        with pytest.raises(ModuleRejected) as excinfo:
            runner.load(path, "simulate")
        messages.append(excinfo.value.message)
    assert messages == [
        "text.wasm is not a wasm binary (it does not start with \\0asm)",
        "not a valid wasm module: malformed section id (at offset 0x8)",
        f"cannot read the module {missing}: No such file or directory",
    ]


def test_run_checks_the_entry_it_is_given(runner: WasmRunner, wasm_file: WasmFile) -> None:
    module = runner.load(wasm_file("correct"), "simulate")
    with pytest.raises(ModuleRejected, match="does not export `solve`"):
        runner.run(module, "solve", SCENARIO, FUEL_LIMIT, 1.0, MEMORY, WALL)


@pytest.mark.parametrize(
    ("fuel_limit", "runway"),
    [(0, 1.0), (-5, 1.0), (100, 0.5), (100, float("nan")), (100, float("inf")), (2**62, 2.0)],
)
def test_run_refuses_budgets_wasmtime_cannot_hold(
    runner: WasmRunner, wasm_file: WasmFile, fuel_limit: int, runway: float
) -> None:
    module = runner.load(wasm_file("correct"), "simulate")
    with pytest.raises(ValueError):
        runner.run(module, "simulate", SCENARIO, fuel_limit, runway, MEMORY, WALL)


# -- fuel is a property of the code and its input -----------------------------------------------

_FUEL_SCRIPT = """
import sys
from pathlib import Path
from pytest_tcab.run.wasm.runner import WasmRunner
with WasmRunner(None) as runner:
    module = runner.load(Path(sys.argv[1]), "simulate")
    result = runner.run(module, "simulate", sys.argv[2].encode(), 10**9, 1.0, 1 << 24, 30.0)
print(result.outcome, result.fuel_consumed, module.sha256)
"""


def test_fuel_is_identical_across_fresh_processes(runner: WasmRunner, wasm_file: WasmFile) -> None:
    path = wasm_file("correct")
    outputs = [
        subprocess.run(
            [sys.executable, "-c", _FUEL_SCRIPT, str(path), SCENARIO.decode()],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
        for _ in range(2)
    ]
    in_process = run(runner, path)
    module = runner.load(path, "simulate")
    assert outputs[0] == outputs[1] == ["ok", str(in_process.fuel_consumed), module.sha256]


def test_fuel_is_identical_across_runs_and_cache(tmp_path: Path, wasm_file: WasmFile) -> None:
    path = wasm_file("correct")
    figures = []
    for _ in range(2):
        # The second runner loads the serialised module: fuel must not depend on the code's origin.
        with WasmRunner(tmp_path / "cache") as wasm_runner:
            figures += [run(wasm_runner, path).fuel_consumed for _ in range(2)]
    assert len(set(figures)) == 1


# -- the compiled-module cache -------------------------------------------------------------------


def _refuse_compile(*args: object, **kwargs: object) -> None:
    raise AssertionError("wasmtime.Module was constructed: the module was compiled again")


def test_cache_hit_does_not_recompile(
    tmp_path: Path, wasm_file: WasmFile, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    path = wasm_file("correct")
    with WasmRunner(cache) as first_runner:
        first = first_runner.load(path, "simulate")
    assert not first.cached
    entries = list(cache.iterdir())
    assert [entry.suffix for entry in entries] == [".cwasm"]

    monkeypatch.setattr(wasmtime.Module, "__init__", _refuse_compile)
    with WasmRunner(cache) as second_runner:
        second = second_runner.load(path, "simulate")
        result = second_runner.run(second, "simulate", SCENARIO, FUEL_LIMIT, 1.0, MEMORY, WALL)
    assert second.cached
    assert second.sha256 == first.sha256
    assert result.outcome == "ok" and result.output == b'{"checksum":2822396200}'
    assert list(cache.iterdir()) == entries


def test_cache_without_a_directory_always_compiles(tmp_path: Path, wasm_file: WasmFile) -> None:
    with WasmRunner(None) as wasm_runner:
        first = wasm_runner.load(wasm_file("correct"), "simulate")
        second = wasm_runner.load(wasm_file("correct"), "simulate")
    assert not first.cached and not second.cached


def test_cache_is_keyed_by_wasmtime_version(
    tmp_path: Path, wasm_file: WasmFile, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    with WasmRunner(cache) as wasm_runner:
        wasm_runner.load(wasm_file("correct"), "simulate")
        monkeypatch.setattr(wasm, "wasmtime_version", lambda: "0.0.0")
        other = wasm_runner.load(wasm_file("correct"), "simulate")
    assert not other.cached
    assert len(list(cache.iterdir())) == 2


def test_cache_is_keyed_by_module(tmp_path: Path, wasm_file: WasmFile) -> None:
    cache = tmp_path / "cache"
    with WasmRunner(cache) as wasm_runner:
        correct = wasm_runner.load(wasm_file("correct"), "simulate")
        wasteful = wasm_runner.load(wasm_file("wasteful"), "simulate")
    assert not wasteful.cached
    assert correct.sha256 != wasteful.sha256
    assert len(list(cache.iterdir())) == 2


def _garbage(blob: bytes) -> bytes:
    return b"not a cache entry"


def _truncated(blob: bytes) -> bytes:
    return blob[: len(blob) // 2]


def _flipped(blob: bytes) -> bytes:
    return blob[:-100] + bytes([blob[-100] ^ 0xFF]) + blob[-99:]


def _sealed_garbage(blob: bytes) -> bytes:
    # A well-formed envelope around bytes wasmtime cannot deserialise.
    import hashlib

    payload = b"\x7fELF but not a module"
    return wasm._CACHE_MAGIC + hashlib.sha256(payload).digest() + payload


@pytest.mark.parametrize("corrupt", [_garbage, _truncated, _flipped, _sealed_garbage])
def test_corrupt_cache_entry_is_ignored_and_rewritten(
    tmp_path: Path, wasm_file: WasmFile, corrupt: Callable[[bytes], bytes]
) -> None:
    cache = tmp_path / "cache"
    path = wasm_file("correct")
    with WasmRunner(cache) as wasm_runner:
        wasm_runner.load(path, "simulate")
    (entry,) = cache.iterdir()
    good = entry.read_bytes()
    entry.write_bytes(corrupt(good))

    with WasmRunner(cache) as wasm_runner:
        recompiled = wasm_runner.load(path, "simulate")
        assert run(wasm_runner, path).output == b'{"checksum":2822396200}'
    assert not recompiled.cached
    assert entry.read_bytes() == good
    with WasmRunner(cache) as wasm_runner:
        assert wasm_runner.load(path, "simulate").cached


# -- answers and versions ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("actual", "expected", "match"),
    [
        (b"abc", b"abc", True),
        (b"", b"", True),
        (b'{"checksum":1}', b'{ "checksum": 1 }\n', True),
        (b'{"a": 1, "b": [1, 2]}', b'{"b": [1, 2], "a": 1}', True),
        (b"1", b"1.0", True),
        (b"true", b"1", False),
        (b"[true]", b"[1]", False),
        (b"0", b"false", False),
        (b"null", b"0", False),
        (b'{"a": 1}', b'{"a": 1, "b": 2}', False),
        (b"[1, 2]", b"[2, 1]", False),
        (b'"x"', b"x", False),
        (b"NaN", b"NaN ", False),
        (b"\xff", b"\xff ", False),
        (b"", b"{}", False),
    ],
)
def test_answers_match(actual: bytes, expected: bytes, match: bool) -> None:
    assert answers_match(actual, expected) is match


def test_wasmtime_version() -> None:
    assert wasmtime_version() == version("wasmtime")
