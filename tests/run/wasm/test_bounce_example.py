"""The example suite's bounce case: its data agrees across layouts, with the Python reference and
with the WAT solutions, and its fuel limit separates them the way DESIGN describes."""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import tomli

from pytest_tcab.models.performance import Contract
from pytest_tcab.models.performance import PerfBuild
from pytest_tcab.models.performance import PerfCase
from pytest_tcab.models.performance import Sandbox
from pytest_tcab.run.wasm.runner import RunResult
from pytest_tcab.run.wasm.runner import WasmRunner
from pytest_tcab.run.wasm.runner import answers_match

pytestmark = pytest.mark.wasm

SUITE = Path(__file__).resolve().parents[3] / "example-suite"
CATALOG = SUITE / "test-cases" / "performance" / "medium" / "bounce" / "v1.0.0"
VERSION = SUITE / "versions" / "v1.0.0"
DEFINITION = VERSION / "test-cases" / "bounce-perf.toml"

WasmFile = Callable[[str], Path]


def _load(path: Path) -> dict[str, Any]:
    return tomli.loads(path.read_text())


CATALOG_DOC = _load(CATALOG / "test-case.toml")
SANDBOX = Sandbox.model_validate(CATALOG_DOC["sandbox"])
CONTRACT = Contract.model_validate(CATALOG_DOC["contract"])
CASES = [PerfCase.model_validate(case) for case in CATALOG_DOC["case"]]


def _gen() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bounce_gen", CATALOG / "tools" / "gen.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_tables_validate_in_both_layouts() -> None:
    definition = _load(DEFINITION)
    for doc in (CATALOG_DOC, definition):
        assert doc["type"] == "performance"
        PerfBuild.model_validate(doc["build"])
        Contract.model_validate(doc["contract"])
        Sandbox.model_validate(doc["sandbox"])
        for case in doc["case"]:
            PerfCase.model_validate(case)
    assert [case.kind for case in CASES] == ["smoke", "smoke", "stress", "stress"]
    assert [case.case_id for case in CASES] == ["three", "walls", "crowd", "long-run"]


def test_layouts_carry_the_same_case() -> None:
    definition = _load(DEFINITION)
    assert definition["build"] == CATALOG_DOC["build"]
    assert definition["sandbox"] == CATALOG_DOC["sandbox"]
    assert definition["contract"]["entry"] == CATALOG_DOC["contract"]["entry"]
    for key in ("input", "output"):
        catalog_file = CATALOG / CATALOG_DOC["contract"][key]
        assert (VERSION / definition["contract"][key]).read_bytes() == catalog_file.read_bytes()
    assert len(definition["case"]) == len(CATALOG_DOC["case"])
    for ours, theirs in zip(definition["case"], CATALOG_DOC["case"], strict=True):
        assert {k: v for k, v in ours.items() if k not in ("input", "expected")} == {
            k: v for k, v in theirs.items() if k not in ("input", "expected")
        }
        for key in ("input", "expected"):
            assert ours[key] == f"perf/{theirs[key]}"
            assert (VERSION / ours[key]).read_bytes() == (CATALOG / theirs[key]).read_bytes()
    starter = CATALOG / "workspaces" / "bounce-rs"
    for path in sorted(p for p in starter.rglob("*") if p.is_file()):
        copy = VERSION / "workspaces" / "bounce-rs" / path.relative_to(starter)
        assert copy.read_bytes() == path.read_bytes()


@pytest.mark.parametrize("case", CASES, ids=[case.case_id for case in CASES])
def test_expected_answers_come_from_the_reference(case: PerfCase) -> None:
    scenario = json.loads((CATALOG / case.input).read_text())
    expected = json.loads((CATALOG / case.expected).read_text())
    assert expected == {"checksum": _gen().simulate(**scenario)}


@pytest.mark.parametrize("case", CASES, ids=[case.case_id for case in CASES])
def test_correct_wat_passes_every_case(
    runner: WasmRunner, wasm_file: WasmFile, case: PerfCase
) -> None:
    result = _run(runner, wasm_file("correct"), case)
    assert result.outcome == "ok"
    assert result.output is not None
    assert answers_match(result.output, (CATALOG / case.expected).read_bytes())
    assert result.fuel_consumed < SANDBOX.fuel_limit


@pytest.mark.parametrize("case", CASES, ids=[case.case_id for case in CASES])
def test_wrong_wat_fails_every_case(
    runner: WasmRunner, wasm_file: WasmFile, case: PerfCase
) -> None:
    result = _run(runner, wasm_file("wrong"), case)
    assert result.outcome == "ok"
    assert result.output is not None
    assert not answers_match(result.output, (CATALOG / case.expected).read_bytes())


def test_wasteful_wat_is_over_the_ceiling_or_out_of_fuel(
    runner: WasmRunner, wasm_file: WasmFile
) -> None:
    crowd, long_run = CASES[2], CASES[3]
    # crowd has no runway: the wasteful solution is stopped at the ceiling.
    stopped = _run(runner, wasm_file("wasteful"), crowd)
    assert stopped.outcome == "out-of-fuel"
    assert stopped.fuel_consumed == SANDBOX.fuel_limit
    # long-run grants a 2x runway: it finishes over the ceiling, with the right answer.
    over = _run(runner, wasm_file("wasteful"), long_run)
    assert over.outcome == "ok"
    assert over.output is not None
    assert answers_match(over.output, (CATALOG / long_run.expected).read_bytes())
    assert SANDBOX.fuel_limit < over.fuel_consumed <= SANDBOX.fuel_limit * long_run.fuel_runway


def _run(runner: WasmRunner, path: Path, case: PerfCase) -> RunResult:
    module = runner.load(path, CONTRACT.entry)
    return runner.run(
        module,
        CONTRACT.entry,
        (CATALOG / case.input).read_bytes(),
        SANDBOX.fuel_limit,
        case.fuel_runway,
        SANDBOX.max_memory_bytes,
        30.0,
    )
