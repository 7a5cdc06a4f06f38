"""The tables a performance case carries: `[build]`, `[contract]`, `[sandbox]`, `[[case]]`."""

from __future__ import annotations

from pathlib import PurePosixPath
from pathlib import PureWindowsPath
from typing import Annotated
from typing import Literal

from pydantic import AfterValidator
from pydantic import ConfigDict
from pydantic import Field
from pydantic import model_validator

from pytest_tcab.models.base import StrictModel
from pytest_tcab.models.fields import NOT_BLANK
from pytest_tcab.models.fields import shown


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be blank")
    return value


def _relative(value: str) -> str:
    # Absolute paths would reach outside the suite tree on one OS or the other; whether a relative
    # path stays inside and exists is the resolver's business, which sees the files.
    if value.startswith(("/", "\\")) or PureWindowsPath(value).drive:
        raise ValueError(f"must be a relative path, not {value!r}")
    return value


def _not_reserved(value: str) -> str:
    # `alloc` and `memory` are ABI exports with their own types, so no entry can also be one.
    if value in ("alloc", "memory"):
        raise ValueError(f"`{value}` is reserved by the ABI; name the entry function differently")
    return value


NonBlank = Annotated[str, AfterValidator(_not_blank), shown(pattern=NOT_BLANK)]
RelativePath = Annotated[str, AfterValidator(_not_blank), AfterValidator(_relative),
                         shown(pattern=NOT_BLANK, **{"not": {"pattern": "^([/\\\\]|[A-Za-z]:)"}})]
Identifier = Annotated[
    str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$"), AfterValidator(_not_reserved),
    shown(**{"not": {"enum": ["alloc", "memory"]}}),
]
CaseId = Annotated[str, Field(pattern=r"^[a-z0-9]+(?:[-_][a-z0-9]+)*$")]


class PerfBuild(StrictModel):
    """How the produced crate becomes a wasm module, run from the implementation's root."""

    install: NonBlank
    """Fetches dependencies; `"true"` when the crate needs none (there is no default)."""
    build: NonBlank
    """Compiles the module, e.g. `cargo build --release --target wasm32-unknown-unknown`."""
    module: RelativePath
    """The artifact the build leaves, relative to the implementation's root."""


class Contract(StrictModel):
    """The function the host calls and the documented shape of the bytes it exchanges."""

    entry: Identifier
    """The exported `(ptr: i32, len: i32) -> i64` function called once per case."""
    input: RelativePath
    """JSON Schema of an input: seeded as documentation, never enforced by the harness."""
    output: RelativePath
    """JSON Schema of an answer: seeded as documentation, never enforced by the harness."""


class Sandbox(StrictModel):
    """The bounds every case runs under."""

    fuel_limit: Annotated[int, Field(gt=0)]
    """The pass line, per case: fuel past it (within the runway) is over-ceiling."""
    max_memory_bytes: Annotated[int, Field(gt=0, le=2**32)]
    """Cap on linear memory; a wasm32 module cannot address more than 4 GiB anyway."""


class PerfCase(StrictModel):
    """One held-out input and its expected answer; never seeded into a run."""

    model_config = ConfigDict(json_schema_extra={
        "if": {"properties": {"kind": {"const": "smoke"}}, "required": ["kind"]},
        "then": {"not": {"required": ["fuel_runway"]}},
    })

    id: CaseId | None = None
    """The name in `correctness[<id>]` / `fuel[<id>]`; defaults to the input's file stem."""
    input: RelativePath
    """The bytes handed to the entry, relative to the version folder."""
    expected: RelativePath
    """The answer to match: equal bytes, or equal JSON values."""
    kind: Literal["smoke", "stress"] = "stress"
    """`smoke` cases are a correctness pre-flight whose fuel is not scored; `stress` cases are."""
    fuel_runway: Annotated[float, Field(ge=1.0, allow_inf_nan=False)] = 1.0
    """Multiple of `fuel_limit` a run may spend before it is stopped, so an over-ceiling run is
    still measured."""

    @model_validator(mode="after")
    def _runway_only_on_stress(self) -> PerfCase:
        # A smoke case is judged on its answer alone, so a runway there is a misunderstanding.
        if self.kind == "smoke" and "fuel_runway" in self.model_fields_set:
            raise ValueError(
                "fuel_runway applies to stress cases only; a smoke case's fuel is not scored"
            )
        return self

    @property
    def case_id(self) -> str:
        """The declared id, else the input's file stem (`cases/large.json` -> `large`)."""
        return self.id if self.id is not None else PurePosixPath(self.input).stem


class PerformanceTables(StrictModel):
    """What a performance case carries in either layout: a manifest and a definition share it."""

    build: PerfBuild
    """How the produced crate becomes a wasm module (`install`, `build`, `module`; required)."""
    contract: Contract
    """The function the host calls and the documented shape of what it exchanges (required)."""
    sandbox: Sandbox
    """The bounds every case runs under: `fuel_limit` and `max_memory_bytes` (required)."""
    case: Annotated[list[PerfCase], Field(min_length=1)]
    """Held-out inputs and expected answers: never seeded."""
