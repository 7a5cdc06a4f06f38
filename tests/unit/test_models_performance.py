"""pytest_tcab.models.performance: the `[build]`, `[contract]`, `[sandbox]`, `[[case]]` tables."""

from __future__ import annotations

from typing import Any

import pytest
import tomli
from pydantic import BaseModel
from pydantic import ValidationError

from pytest_tcab.models.performance import Contract
from pytest_tcab.models.performance import PerfBuild
from pytest_tcab.models.performance import PerfCase
from pytest_tcab.models.performance import Sandbox

DESIGN_EXAMPLE = """
[build]
install = "cargo fetch"
build = "cargo build --release --target wasm32-unknown-unknown"
module = "target/wasm32-unknown-unknown/release/solution.wasm"

[contract]
entry = "simulate"
input = "schemas/input.json"
output = "schemas/output.json"

[sandbox]
fuel_limit = 40_000_000
max_memory_bytes = 268_435_456

[[case]]
id = "one-item"
input = "smoke/one-item.json"
expected = "smoke/one-item.out"
kind = "smoke"

[[case]]
input = "cases/large.json"
expected = "cases/large.out"
fuel_runway = 2.0
"""


Loc = tuple[str | int, ...]


def _errors(model: type[BaseModel], data: dict[str, Any]) -> list[tuple[Loc, str]]:
    """Every (location, message) pydantic reports, so a test pins all problems, not the first."""
    with pytest.raises(ValidationError) as excinfo:
        model.model_validate(data)
    return [(err["loc"], err["msg"]) for err in excinfo.value.errors(include_url=False)]


def test_design_example_parses() -> None:
    doc = tomli.loads(DESIGN_EXAMPLE)
    build = PerfBuild.model_validate(doc["build"])
    contract = Contract.model_validate(doc["contract"])
    sandbox = Sandbox.model_validate(doc["sandbox"])
    smoke, stress = (PerfCase.model_validate(case) for case in doc["case"])
    assert build.module == "target/wasm32-unknown-unknown/release/solution.wasm"
    assert contract.entry == "simulate"
    assert (sandbox.fuel_limit, sandbox.max_memory_bytes) == (40_000_000, 268_435_456)
    assert (smoke.case_id, smoke.kind, smoke.fuel_runway) == ("one-item", "smoke", 1.0)
    assert (stress.case_id, stress.kind, stress.fuel_runway) == ("large", "stress", 2.0)


# -- [build] ------------------------------------------------------------------------------------

BUILD = {"install": "true", "build": "cargo build", "module": "target/m.wasm"}


@pytest.mark.parametrize("key", ["install", "build", "module"])
def test_build_keys_are_required(key: str) -> None:
    data = {k: v for k, v in BUILD.items() if k != key}
    assert _errors(PerfBuild, data) == [((key,), "Field required")]


@pytest.mark.parametrize("key", ["install", "build", "module"])
@pytest.mark.parametrize("blank", ["", "   ", "\t\n"])
def test_build_keys_must_not_be_blank(key: str, blank: str) -> None:
    assert _errors(PerfBuild, {**BUILD, key: blank}) == [((key,), "Value error, must not be blank")]


@pytest.mark.parametrize("module", ["/abs/m.wasm", "\\\\server\\m.wasm", "C:\\m.wasm", "C:m.wasm"])
def test_build_module_is_relative(module: str) -> None:
    assert _errors(PerfBuild, {**BUILD, "module": module}) == [
        (("module",), f"Value error, must be a relative path, not {module!r}")
    ]


def test_build_rejects_unknown_keys_and_non_strings() -> None:
    assert _errors(PerfBuild, {**BUILD, "timeout": 5}) == [
        (("timeout",), "Extra inputs are not permitted")
    ]
    assert _errors(PerfBuild, {**BUILD, "build": ["cargo", "build"]}) == [
        (("build",), "Input should be a valid string")
    ]


# -- [contract] ---------------------------------------------------------------------------------

CONTRACT = {"entry": "simulate", "input": "schemas/in.json", "output": "schemas/out.json"}


@pytest.mark.parametrize("entry", ["simulate", "_run", "solve2", "Step_All"])
def test_contract_entry_identifiers(entry: str) -> None:
    assert Contract.model_validate({**CONTRACT, "entry": entry}).entry == entry


@pytest.mark.parametrize("entry", ["", "2fast", "run-all", "a b", "sim.run"])
def test_contract_entry_must_be_an_identifier(entry: str) -> None:
    assert _errors(Contract, {**CONTRACT, "entry": entry}) == [
        (("entry",), "String should match pattern '^[A-Za-z_][A-Za-z0-9_]*$'")
    ]


@pytest.mark.parametrize("entry", ["alloc", "memory"])
def test_contract_entry_is_not_an_abi_name(entry: str) -> None:
    assert _errors(Contract, {**CONTRACT, "entry": entry}) == [
        (
            ("entry",),
            f"Value error, `{entry}` is reserved by the ABI; name the entry function differently",
        )
    ]


@pytest.mark.parametrize("key", ["input", "output"])
def test_contract_schemas_are_relative_paths(key: str) -> None:
    assert _errors(Contract, {**CONTRACT, key: "/etc/schema.json"}) == [
        ((key,), "Value error, must be a relative path, not '/etc/schema.json'")
    ]
    assert _errors(Contract, {**CONTRACT, key: " "}) == [((key,), "Value error, must not be blank")]


# -- [sandbox] ----------------------------------------------------------------------------------


def test_sandbox_bounds() -> None:
    assert Sandbox.model_validate({"fuel_limit": 1, "max_memory_bytes": 2**32}).fuel_limit == 1
    assert _errors(Sandbox, {"fuel_limit": 0, "max_memory_bytes": 0}) == [
        (("fuel_limit",), "Input should be greater than 0"),
        (("max_memory_bytes",), "Input should be greater than 0"),
    ]
    assert _errors(Sandbox, {"fuel_limit": 5, "max_memory_bytes": 2**32 + 1}) == [
        (("max_memory_bytes",), "Input should be less than or equal to 4294967296")
    ]


@pytest.mark.parametrize("value", [1.5, "100", True])
def test_sandbox_fuel_limit_is_a_toml_integer(value: object) -> None:
    errors = _errors(Sandbox, {"fuel_limit": value, "max_memory_bytes": 65536})
    assert [loc for loc, _message in errors] == [("fuel_limit",)]


def test_sandbox_keys_are_required() -> None:
    assert _errors(Sandbox, {}) == [
        (("fuel_limit",), "Field required"),
        (("max_memory_bytes",), "Field required"),
    ]


# -- [[case]] -----------------------------------------------------------------------------------

CASE = {"input": "cases/large.json", "expected": "cases/large.out"}


def test_case_defaults() -> None:
    case = PerfCase.model_validate(CASE)
    assert (case.id, case.kind, case.fuel_runway) == (None, "stress", 1.0)
    assert case.case_id == "large"


@pytest.mark.parametrize(
    ("input_path", "stem"),
    [("a/b/long-run.json", "long-run"), ("x.tar.gz", "x.tar"), ("noext", "noext")],
)
def test_case_id_defaults_to_the_input_stem(input_path: str, stem: str) -> None:
    assert PerfCase.model_validate({**CASE, "input": input_path}).case_id == stem


def test_declared_id_wins() -> None:
    assert PerfCase.model_validate({**CASE, "id": "big-one"}).case_id == "big-one"


@pytest.mark.parametrize("case_id", ["one-item", "x", "case_2", "a1-b2-c3"])
def test_case_id_slugs(case_id: str) -> None:
    assert PerfCase.model_validate({**CASE, "id": case_id}).id == case_id


@pytest.mark.parametrize("case_id", ["", "One", "a--b", "-a", "a-", "a b", "a/b", "a.b"])
def test_case_id_must_be_a_slug(case_id: str) -> None:
    assert _errors(PerfCase, {**CASE, "id": case_id}) == [
        (("id",), "String should match pattern '^[a-z0-9]+(?:[-_][a-z0-9]+)*$'")
    ]


def test_case_kind() -> None:
    assert PerfCase.model_validate({**CASE, "kind": "smoke"}).kind == "smoke"
    assert _errors(PerfCase, {**CASE, "kind": "warmup"}) == [
        (("kind",), "Input should be 'smoke' or 'stress'")
    ]


@pytest.mark.parametrize(("runway", "stored"), [(1.0, 1.0), (2, 2.0), (3.5, 3.5)])
def test_case_runway(runway: float, stored: float) -> None:
    assert PerfCase.model_validate({**CASE, "fuel_runway": runway}).fuel_runway == stored


@pytest.mark.parametrize(
    ("runway", "message"),
    [
        (0.99, "Input should be greater than or equal to 1"),
        (0, "Input should be greater than or equal to 1"),
        (float("inf"), "Input should be a finite number"),
        (float("nan"), "Input should be a finite number"),
        (True, "Input should be a valid number"),
        ("2", "Input should be a valid number"),
    ],
)
def test_case_runway_bounds(runway: object, message: str) -> None:
    assert _errors(PerfCase, {**CASE, "fuel_runway": runway}) == [(("fuel_runway",), message)]


def test_smoke_case_takes_no_runway() -> None:
    assert _errors(PerfCase, {**CASE, "kind": "smoke", "fuel_runway": 1.0}) == [
        (
            (),
            "Value error, fuel_runway applies to stress cases only; "
            "a smoke case's fuel is not scored",
        )
    ]


@pytest.mark.parametrize("key", ["input", "expected"])
def test_case_paths(key: str) -> None:
    assert _errors(PerfCase, {k: v for k, v in CASE.items() if k != key}) == [
        ((key,), "Field required")
    ]
    assert _errors(PerfCase, {**CASE, key: "/tmp/x"}) == [
        ((key,), "Value error, must be a relative path, not '/tmp/x'")
    ]


def test_case_rejects_unknown_keys() -> None:
    assert _errors(PerfCase, {**CASE, "weight": 2}) == [
        (("weight",), "Extra inputs are not permitted")
    ]


def test_models_are_frozen() -> None:
    case = PerfCase.model_validate(CASE)
    with pytest.raises(ValidationError):
        case.kind = "smoke"


def test_fields_are_documented() -> None:
    for model in (PerfBuild, Contract, Sandbox, PerfCase):
        for name, field in model.model_fields.items():
            assert field.description, f"{model.__name__}.{name} has no docstring"
