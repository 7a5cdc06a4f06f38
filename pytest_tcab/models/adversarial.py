"""The tables an adversarial case carries in either layout: `[build]`, `[contract]`, `[sandbox]`,
`[simulation]`, `[match]` and `[replay]` (DESIGN "Adversarial cases")."""

from __future__ import annotations

from typing import Annotated
from typing import Literal

from pydantic import Field

from pytest_tcab.models.base import StrictModel
from pytest_tcab.models.fields import PositiveNumber
from pytest_tcab.models.performance import Identifier
from pytest_tcab.models.performance import PerfBuild
from pytest_tcab.models.performance import RelativePath


class AdversarialBuild(PerfBuild):
    """How the produced crate becomes the controller's wasm module."""


class AdversarialContract(StrictModel):
    """What the referee calls each tick, and the shape of what it exchanges."""

    entry: Identifier
    """The exported `(ptr: i32, len: i32) -> i64` function called once per tick with the world."""
    world: RelativePath
    """JSON Schema of the observation handed to the entry (seeded as documentation)."""
    action: RelativePath
    """JSON Schema of an action: seeded, and every answer is validated against it."""


class AdversarialSandbox(StrictModel):
    """The bounds every controller plays under."""

    fuel_per_tick: Annotated[int, Field(gt=0, lt=2**63)]
    """Fuel set before each call of the entry; a tick past it forfeits the match."""
    max_memory_bytes: Annotated[int, Field(gt=0, le=2**32)]
    """Cap on a controller's linear memory; memory past it forfeits the match."""


class Simulation(StrictModel):
    """The rules of the game and the clock of a match."""

    referee: RelativePath
    """The Python module (reporter-side, never seeded) defining `new_match`, `observe`,
    `apply`, `step` and `frame`."""
    timestep_ms: PositiveNumber
    """The simulated time of one tick, handed to the replay renderer."""
    max_ticks: Annotated[int, Field(gt=0)]
    """A match still going at this tick is a draw."""


class Match(StrictModel):
    """How controllers are paired in the tournament."""

    participants: Annotated[int, Field(ge=2)]
    """Controllers per match."""
    structure: Literal["round-robin", "bracket"]
    """Every group of `participants` meets (round-robin), or winners advance (bracket)."""
    rounds: Annotated[int, Field(ge=1)]
    """Matches per pairing, with seeds 0..rounds-1."""
    house: list[RelativePath] = []
    """Reporter-side controllers (`.wasm`, or `.wat` text) that join every tournament."""


class Replay(StrictModel):
    """How a match is shown afterwards (reporter-side, never seeded)."""

    renderer: RelativePath
    """An HTML page that plays a replay log posted to it (see docs/run/tournaments.md)."""


class AdversarialTables(StrictModel):
    """What an adversarial case carries in either layout: a manifest and a definition share it."""

    build: AdversarialBuild
    """How the produced crate becomes the controller's wasm module (`install`, `build`, `module`;
    required)."""
    contract: AdversarialContract
    """What the referee calls each tick, and the shape of what it exchanges (required)."""
    sandbox: AdversarialSandbox
    """The bounds every controller plays under: `fuel_per_tick` and `max_memory_bytes` (required)."""
    simulation: Simulation
    """The rules of the game and the clock of a match (required)."""
    match: Match
    """How controllers are paired in the tournament (required)."""
    replay: Replay | None = None
    """Optional: how a match is shown afterwards."""
