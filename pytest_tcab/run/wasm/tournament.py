"""Tournaments of wasm controllers: matches played tick by tick under the referee, the schedule
(round-robin or bracket) and the standings.

Nothing here knows pytest. A match is deterministic: the same modules, seed and referee give
the same frames, result and fuel, in any process (fuel is counted by wasmtime, and the
wall-clock bound only ever stops a controller that would forfeit on fuel anyway).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from typing import Any
from typing import Literal

from pytest_tcab.run.wasm.referee import Referee
from pytest_tcab.run.wasm.referee import RefereeFailed
from pytest_tcab.run.wasm.runner import LiveInstance
from pytest_tcab.run.wasm.runner import LoadedModule
from pytest_tcab.run.wasm.runner import RunResult
from pytest_tcab.run.wasm.runner import WasmRunner

ForfeitKind = Literal["not-built", "trap", "out-of-fuel", "memory", "timeout", "invalid-action"]
"""Why a controller left a match: each is recorded with the tick and the detail."""

POINTS = {"win": 3, "draw": 1, "loss": 0}

_SHOWN_BYTES = 120
"""How much of an invalid answer a forfeit quotes."""

MAX_ACTION_BYTES = 65536
"""An answer longer than this is not read: no action needs it, and parsing it costs the host."""

_VALID_ANSWERS_KEPT = 4096
"""How many distinct valid answers are remembered (the rest are validated every time)."""


@dataclass(frozen=True)
class Entrant:
    """A controller in the tournament: a produced run's module, or a house controller's."""

    name: str
    module: LoadedModule | None
    """None when it could not be built or loaded: it forfeits every match it is drawn in."""
    house: bool = False
    problem: str | None = None
    """Why there is no module."""


@dataclass(frozen=True)
class Rules:
    """What every match of a case is played under."""

    referee: Referee
    entry: str
    fuel_per_tick: int
    max_memory_bytes: int
    max_ticks: int
    timestep_ms: float
    action_schema: dict[str, Any] | bool
    wall_timeout_s: float
    validator: Any = field(init=False, repr=False, compare=False)
    """The action schema's validator, made once: every answer of every tick goes through it."""
    valid_answers: set[bytes] = field(default_factory=set, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        import jsonschema

        validator_class = jsonschema.validators.validator_for(self.action_schema)
        object.__setattr__(self, "validator", validator_class(self.action_schema))

    def action(self, output: bytes) -> tuple[Any, str | None]:
        """The action `output` encodes, or why it is none: JSON, and valid against the action schema.

        Controllers answer the same few actions over and over, so answers already found valid
        skip the schema (it costs more than the rest of a tick).
        """
        import jsonschema

        if len(output) > MAX_ACTION_BYTES:
            return None, f"answered {len(output):,} bytes; an action is at most {MAX_ACTION_BYTES:,} bytes of JSON"
        try:
            action = json.loads(output.decode("utf-8"), parse_constant=_no_constant)
        except ValueError as exc:
            return None, f"answered {_quote(output)}, which is not JSON ({exc})"
        if output in self.valid_answers:
            return action, None
        if self.validator.is_valid(action):
            if len(self.valid_answers) < _VALID_ANSWERS_KEPT:
                self.valid_answers.add(bytes(output))
            return action, None
        error = jsonschema.exceptions.best_match(self.validator.iter_errors(action))
        where = "".join(f"[{part!r}]" for part in error.absolute_path) or "the action"
        return None, f"answered {_quote(output)}: {where}: {error.message} (the action schema)"


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _quote(data: bytes) -> str:
    text = repr(data[:_SHOWN_BYTES])[1:]
    return text + (f" ({len(data):,} bytes)" if len(data) > _SHOWN_BYTES else "")


@dataclass(frozen=True)
class Forfeit:
    kind: ForfeitKind
    tick: int
    """The tick it happened on; 0 before the first (a build or instantiation failure)."""
    reason: str

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "tick": self.tick, "reason": self.reason}


@dataclass(frozen=True)
class MatchResult:
    """How one match ended, with what each controller spent, and its replay frames."""

    players: tuple[str, ...]
    seed: int
    winner: str | None
    ending: Literal["won", "draw", "forfeit"]
    """`won` by the referee's rules, `draw` (the referee's or at max_ticks), or decided by `forfeit`."""
    ticks: int
    scores: dict[str, Any]
    fuel: dict[str, int]
    forfeits: dict[str, Forfeit]
    frames: list[dict[str, Any]] = field(repr=False)

    def outcome_of(self, player: str) -> Literal["win", "draw", "loss"]:
        if player in self.forfeits or (self.winner is not None and self.winner != player):
            return "loss"
        return "win" if self.winner == player else "draw"

    def summary(self) -> str:
        """One line for a terminal or a report."""
        if self.winner is not None:
            how = {"won": "wins", "forfeit": "wins by forfeit"}.get(self.ending, "wins")
            text = f"{self.winner} {how} after {self.ticks:,} ticks"
        elif self.ending == "forfeit":
            text = f"no winner: every controller forfeited (tick {self.ticks:,})"
        else:
            text = f"draw after {self.ticks:,} ticks"
        lost = "; ".join(f"{name} forfeited at tick {f.tick}: {f.kind}" for name, f in self.forfeits.items())
        return f"{text}{f' ({lost})' if lost else ''}"

    def record(self) -> dict[str, Any]:
        """The match as results.json carries it (the frames go to the replay log)."""
        return {
            "players": list(self.players), "seed": self.seed, "winner": self.winner, "ending": self.ending,
            "ticks": self.ticks, "scores": self.scores, "fuel": self.fuel,
            "forfeits": {name: f.as_dict() for name, f in self.forfeits.items()},
            "outcomes": {name: self.outcome_of(name) for name in self.players},
        }

    def replay(self, timestep_ms: float) -> dict[str, Any]:
        """The replay log a renderer page plays: who played, the clock, every frame, the result."""
        return {"players": list(self.players), "seed": self.seed, "timestep_ms": timestep_ms,
                "frames": self.frames, "result": self.record()}


def play_match(rules: Rules, runner: WasmRunner, entrants: Sequence[Entrant], seed: int) -> MatchResult:
    """Play one match tick by tick: every live controller observes the same state, answers,
    then the referee applies the actions in player order and steps the world.

    A controller that traps, runs out of fuel, outgrows the memory cap or answers an invalid
    action forfeits: it is no longer called and loses the match; the others play on. When one
    controller is left it wins; the referee's verdict decides otherwise, and `max_ticks` ends
    the match as a draw. Raises RefereeFailed when the referee does.
    """
    referee = rules.referee
    players = [entrant.name for entrant in entrants]
    state = referee.new_match(seed, list(players))
    fuel = dict.fromkeys(players, 0)
    forfeits: dict[str, Forfeit] = {}
    live: dict[str, LiveInstance] = {}
    for entrant in entrants:
        if entrant.module is None:
            forfeits[entrant.name] = Forfeit("not-built", 0, entrant.problem or "no module")
            continue
        instance = runner.instantiate(entrant.module, rules.entry, rules.fuel_per_tick, rules.max_memory_bytes,
                                      rules.wall_timeout_s)
        if isinstance(instance, RunResult):
            forfeits[entrant.name] = _forfeit(rules, instance, 0)
        else:
            live[entrant.name] = instance
    frames = [referee.frame(state)]
    verdict: dict[str, Any] | None = None
    tick = 0
    while verdict is None and len(live) > 1 and tick < rules.max_ticks:
        tick += 1
        actions: list[tuple[str, Any]] = []
        for name, instance in list(live.items()):
            world = _world_bytes(referee, state, name)
            result = instance.call(world, rules.fuel_per_tick)
            fuel[name] += result.fuel_consumed
            if result.outcome != "ok" or result.output is None:
                forfeits[name] = _forfeit(rules, result, tick)
                del live[name]
                continue
            action, reason = rules.action(result.output)
            if reason is not None:
                forfeits[name] = Forfeit("invalid-action", tick, reason)
                del live[name]
                continue
            actions.append((name, action))
        for name, action in actions:
            referee.apply(state, name, action)
        verdict = referee.step(state)
        frames.append(referee.frame(state))
    return _result(players, seed, verdict, live, forfeits, fuel, tick, frames)


def _world_bytes(referee: Referee, state: Any, player: str) -> bytes:
    observed = referee.observe(state, player)
    try:
        return json.dumps(observed, separators=(",", ":"), allow_nan=False).encode()
    except (TypeError, ValueError) as exc:
        raise RefereeFailed(f"referee {referee.path.name}: observe() returned a world that is not JSON: {exc}") from None


def _result(players: list[str], seed: int, verdict: dict[str, Any] | None, live: dict[str, LiveInstance],
            forfeits: dict[str, Forfeit], fuel: dict[str, int], tick: int,
            frames: list[dict[str, Any]]) -> MatchResult:
    scores = dict(verdict.get("scores") or {}) if verdict is not None else {}
    if verdict is None and len(live) <= 1:
        # Forfeits decided it: the one left standing wins (none, when every controller left).
        winner = next(iter(live), None)
        return MatchResult(tuple(players), seed, winner, "forfeit", tick, scores, fuel, forfeits, frames)
    winner = verdict.get("winner") if verdict is not None else None
    if winner is not None and winner not in live:
        # The referee named a controller that forfeited (or no player): a forfeit cannot win.
        winner = None
    ending: Literal["won", "draw"] = "won" if winner is not None else "draw"
    return MatchResult(tuple(players), seed, winner, ending, tick, scores, fuel, forfeits, frames)


def _forfeit(rules: Rules, result: RunResult, tick: int) -> Forfeit:
    when = f"tick {tick}" if tick else "instantiation"
    if result.outcome == "out-of-fuel":
        return Forfeit("out-of-fuel", tick, f"{when}: used all {rules.fuel_per_tick:,} fuel of [sandbox] fuel_per_tick "
                                            "without answering")
    if result.outcome == "timeout":
        return Forfeit("timeout", tick, f"{when}: stopped at the wall-clock limit of {rules.wall_timeout_s:g} s")
    if result.outcome == "memory":
        return Forfeit("memory", tick, f"{when}: {result.message}")
    return Forfeit("trap", tick, f"{when}: {result.message}")


# -- the schedule ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Slot:
    """One match of the schedule: its players when known at collection (round-robin, a
    bracket's first stage), else the bracket position whose players earlier stages decide."""

    label: str
    """What the item is called: `a-vs-b#0`, or `final#0` / `stage2-1#0` in a bracket."""
    seed: int
    stage: int = 1
    group: int = 0
    players: tuple[str, ...] | None = None


def match_label(players: Sequence[str], seed: int) -> str:
    return f"{'-vs-'.join(players)}#{seed}"


def round_robin(names: Sequence[str], participants: int, rounds: int) -> list[Slot]:
    """Every group of `participants` controllers meets `rounds` times, with seeds 0..rounds-1."""
    return [Slot(match_label(group, seed), seed, players=tuple(group))
            for group in itertools.combinations(names, participants) for seed in range(rounds)]


def _chunks(names: Sequence[str], participants: int) -> list[tuple[str, ...]]:
    return [tuple(names[i:i + participants]) for i in range(0, len(names), participants)]


def bracket_stages(entrants: int, participants: int) -> list[list[int]]:
    """The group sizes of each stage of a bracket, down to the final's one group.

    Entrants are grouped in order, `participants` at a time; each group's winner advances, and
    a group of one (a bye) advances unplayed.
    """
    stages = []
    while entrants > 1:
        sizes = [min(participants, entrants - i) for i in range(0, entrants, participants)]
        stages.append(sizes)
        entrants = len(sizes)
    return stages


def bracket(names: Sequence[str], participants: int, rounds: int) -> list[Slot]:
    """A knockout: stage 1's matches are named by their players; later stages by position
    (`stage2-1`, ..., `final`), since earlier stages decide who plays them."""
    stages = bracket_stages(len(names), participants)
    first = _chunks(names, participants)
    slots: list[Slot] = []
    for stage, sizes in enumerate(stages, start=1):
        for group, size in enumerate(sizes):
            if size < 2:
                continue  # a bye
            players = first[group] if stage == 1 else None
            name = "final" if stage == len(stages) else f"stage{stage}-{group + 1}"
            for seed in range(rounds):
                label = match_label(players, seed) if players else f"{name}#{seed}"
                slots.append(Slot(label, seed, stage, group, players))
    return slots


def schedule(names: Sequence[str], structure: str, participants: int, rounds: int) -> list[Slot]:
    """The tournament's matches in playing order."""
    make = bracket if structure == "bracket" else round_robin
    return make(names, participants, rounds)


class Tournament:
    """The matches of one case's tournament, each played at most once per process.

    A bracket slot's players are found by playing the stages before it; a match item and the
    standings may ask in any order (or on another xdist worker, which replays what it needs:
    matches are deterministic).
    """

    def __init__(self, rules: Rules, runner: WasmRunner, entrants: Sequence[Entrant], structure: str,
                 participants: int, rounds: int) -> None:
        self.rules = rules
        self.runner = runner
        self.entrants = {entrant.name: entrant for entrant in entrants}
        self.names = [entrant.name for entrant in entrants]
        self.structure = structure
        self.participants = participants
        self.rounds = rounds
        self._played: dict[tuple[tuple[str, ...], int], MatchResult] = {}

    def schedule(self) -> list[Slot]:
        return schedule(self.names, self.structure, self.participants, self.rounds)

    def play(self, players: tuple[str, ...], seed: int) -> MatchResult:
        key = (players, seed)
        if key not in self._played:
            self._played[key] = play_match(self.rules, self.runner, [self.entrants[p] for p in players], seed)
        return self._played[key]

    def players_of(self, slot: Slot) -> tuple[str, ...]:
        if slot.players is not None:
            return slot.players
        advancing = self._advancing(slot.stage - 1)
        return _chunks(advancing, self.participants)[slot.group]

    def _advancing(self, stage: int) -> list[str]:
        """Who comes out of `stage` of the bracket, in group order (stage 0: everyone)."""
        if stage == 0:
            return list(self.names)
        groups = _chunks(self._advancing(stage - 1), self.participants)
        return [group[0] if len(group) == 1 else self.series_winner(group) for group in groups]

    def series_winner(self, players: tuple[str, ...]) -> str:
        """The winner of a bracket group over its `rounds` matches: most points, then most wins,
        then least fuel, then the earlier entrant."""
        table = standings([self.play(players, seed) for seed in range(self.rounds)], players)
        return table[0].name

    def play_all(self) -> Iterator[tuple[Slot, MatchResult]]:
        for slot in self.schedule():
            yield slot, self.play(self.players_of(slot), slot.seed)

    def champion(self) -> str | None:
        """The bracket's winner; None for a round-robin (its standings say who leads)."""
        if self.structure != "bracket" or len(self.names) < 2:
            return None
        return self._advancing(len(bracket_stages(len(self.names), self.participants)))[0]


# -- standings ------------------------------------------------------------------------------


@dataclass
class Standing:
    """One controller's line of the standings table."""

    name: str
    house: bool = False
    played: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    forfeits: int = 0
    fuel: int = 0
    ticks: int = 0
    """Ticks it answered in, so fuel per tick can be compared across controllers."""

    @property
    def points(self) -> int:
        return POINTS["win"] * self.wins + POINTS["draw"] * self.draws

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "house": self.house, "played": self.played, "wins": self.wins,
                "draws": self.draws, "losses": self.losses, "forfeits": self.forfeits, "points": self.points,
                "fuel": self.fuel, "fuel_per_tick": round(self.fuel / self.ticks) if self.ticks else None}


def standings(results: Sequence[MatchResult], names: Sequence[str], house: Sequence[str] = ()) -> list[Standing]:
    """The table: most points first, then most wins, then least fuel, then entry order."""
    table = {name: Standing(name, house=name in house) for name in names}
    for result in results:
        for player in result.players:
            line = table[player]
            line.played += 1
            outcome = result.outcome_of(player)
            line.wins += outcome == "win"
            line.draws += outcome == "draw"
            line.losses += outcome == "loss"
            line.forfeits += player in result.forfeits
            line.fuel += result.fuel[player]
            forfeit = result.forfeits.get(player)
            line.ticks += result.ticks if forfeit is None else max(forfeit.tick - 1, 0)
    order = {name: i for i, name in enumerate(names)}
    return sorted(table.values(), key=lambda s: (-s.points, -s.wins, s.fuel, order[s.name]))


def standings_table(lines: Sequence[Standing]) -> list[str]:
    """The standings as aligned text lines, for the terminal."""
    width = max([len(line.name) + (8 if line.house else 0) for line in lines] + [10])
    head = f"{'#':>2}  {'controller':<{width}}  {'W':>3} {'D':>3} {'L':>3} {'F':>3} {'pts':>4}  {'fuel':>14}"
    rows = [head]
    for rank, line in enumerate(lines, start=1):
        name = f"{line.name} (house)" if line.house else line.name
        rows.append(f"{rank:>2}  {name:<{width}}  {line.wins:>3} {line.draws:>3} {line.losses:>3} "
                    f"{line.forfeits:>3} {line.points:>4}  {line.fuel:>14,}")
    return rows
