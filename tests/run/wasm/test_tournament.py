"""Matches, schedules and standings against real wasmtime, with the WAT controllers of tournament/.

The game is tournament/echo_referee.py: echoing the tick's digit scores, a three-point lead wins.
strong echoes every digit, weak always answers "0"; the others misbehave in one way each.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
import wasmtime

from pytest_tcab.run.wasm.referee import Referee
from pytest_tcab.run.wasm.referee import RefereeFailed
from pytest_tcab.run.wasm.runner import WasmRunner
from pytest_tcab.run.wasm.tournament import Entrant
from pytest_tcab.run.wasm.tournament import Rules
from pytest_tcab.run.wasm.tournament import Tournament
from pytest_tcab.run.wasm.tournament import bracket
from pytest_tcab.run.wasm.tournament import play_match
from pytest_tcab.run.wasm.tournament import round_robin
from pytest_tcab.run.wasm.tournament import standings

pytestmark = pytest.mark.wasm

FILES = Path(__file__).parent / "tournament"
FUEL_PER_TICK = 10_000
MAX_TICKS = 60

Controller = Callable[..., Entrant]


@pytest.fixture
def rules() -> Rules:
    return rules_for(FILES / "echo_referee.py")


def rules_for(referee: Path, max_ticks: int = MAX_TICKS) -> Rules:
    return Rules(referee=Referee(referee), entry="act", fuel_per_tick=FUEL_PER_TICK, max_memory_bytes=4 * 65536,
                 max_ticks=max_ticks, timestep_ms=50.0, action_schema=json.loads((FILES / "action.json").read_text()),
                 wall_timeout_s=10.0)


@pytest.fixture
def controller(runner: WasmRunner, tmp_path: Path) -> Controller:
    """An entrant playing `tournament/<wat>.wat`, under `name` (the WAT name by default)."""

    def make(wat: str, name: str | None = None) -> Entrant:
        path = tmp_path / f"{wat}.wasm"
        path.write_bytes(bytes(wasmtime.wat2wasm((FILES / f"{wat}.wat").read_text())))
        return Entrant(name or wat, runner.load(path, "act"))

    return make


def test_the_stronger_controller_wins(rules: Rules, runner: WasmRunner, controller: Controller) -> None:
    result = play_match(rules, runner, [controller("weak"), controller("strong")], seed=0)
    assert (result.winner, result.ending, result.forfeits) == ("strong", "won", {})
    assert result.outcome_of("strong") == "win" and result.outcome_of("weak") == "loss"
    assert result.scores["strong"] - result.scores["weak"] == 3
    assert 3 <= result.ticks < MAX_TICKS
    # Fuel is wasmtime's count of the entry calls alone: 12 per tick for strong, 6 for weak.
    assert result.fuel == {"strong": 12 * result.ticks, "weak": 6 * result.ticks}
    assert len(result.frames) == result.ticks + 1  # the opening frame, then one per tick
    assert result.frames[-1]["score"] == result.scores


def test_two_perfect_controllers_draw_at_max_ticks(rules: Rules, runner: WasmRunner, controller: Controller) -> None:
    result = play_match(rules, runner, [controller("strong", "a"), controller("strong", "b")], seed=4)
    assert (result.winner, result.ending, result.ticks) == (None, "draw", MAX_TICKS)
    assert result.outcome_of("a") == result.outcome_of("b") == "draw"
    assert result.summary() == f"draw after {MAX_TICKS} ticks"


@pytest.mark.parametrize(
    ("wat", "kind", "tick", "reason"),
    [
        ("loops", "out-of-fuel", 3, "tick 3: used all 10,000 fuel of [sandbox] fuel_per_tick without answering"),
        ("traps", "trap", 2, "tick 2: act trapped: wasm `unreachable` instruction executed"),
        ("hog", "memory", 4, ("tick 4: act asked for memory past max_memory_bytes (327,680 bytes asked, cap 262,144), "
                             "was refused, then trapped: wasm `unreachable` instruction executed")),
        ("garbage", "invalid-action", 1, ("answered '{\"move\":42}': ['move']: 42 is not of type 'string' (the action "
                                         "schema)")),
        ("notjson", "invalid-action", 1, ("answered 'move up!', which is not JSON (Expecting value: line 1 column 1 "
                                         "(char 0))")),
        ("chatty", "invalid-action", 1, "answered 70,000 bytes; an action is at most 65,536 bytes of JSON"),
    ],
    ids=["fuel", "trap", "memory", "schema", "not-json", "too-long"],
)
def test_a_misbehaving_controller_forfeits_with_the_reason(rules: Rules, runner: WasmRunner, controller: Controller,
                                                            wat: str, kind: str, tick: int, reason: str) -> None:
    # weak answers "0" and never leads by three within these few ticks, so the forfeit decides.
    result = play_match(rules, runner, [controller("weak"), controller(wat)], seed=1)
    forfeit = result.forfeits[wat]
    assert (forfeit.kind, forfeit.tick, forfeit.reason) == (kind, tick, reason)
    assert (result.winner, result.ending, result.ticks) == ("weak", "forfeit", tick)
    assert result.outcome_of(wat) == "loss"
    assert f"{wat} forfeited at tick {tick}: {kind}" in result.summary()


def test_the_others_play_on_after_a_forfeit(runner: WasmRunner, controller: Controller) -> None:
    rules = rules_for(FILES / "echo_referee.py")
    result = play_match(rules, runner, [controller("loops"), controller("weak"), controller("strong")], seed=0)
    assert list(result.forfeits) == ["loops"] and result.forfeits["loops"].tick == 3
    assert (result.winner, result.ending) == ("strong", "won") and result.ticks > 3
    assert [result.outcome_of(name) for name in ("loops", "weak", "strong")] == ["loss", "loss", "win"]


def test_a_controller_without_a_module_forfeits_before_the_first_tick(rules: Rules, runner: WasmRunner,
                                                                     controller: Controller) -> None:
    broken = Entrant("broken", None, problem="build failed: cargo exited 101")
    result = play_match(rules, runner, [broken, controller("weak")], seed=0)
    assert (result.winner, result.ending, result.ticks) == ("weak", "forfeit", 0)
    assert result.forfeits["broken"].as_dict() == {"kind": "not-built", "tick": 0,
                                                   "reason": "build failed: cargo exited 101"}


def test_round_robin_meets_every_group_once_per_round() -> None:
    labels = [slot.label for slot in round_robin(["a", "b", "c"], 2, 2)]
    assert labels == ["a-vs-b#0", "a-vs-b#1", "a-vs-c#0", "a-vs-c#1", "b-vs-c#0", "b-vs-c#1"]
    assert [slot.label for slot in round_robin(["a", "b", "c", "d"], 3, 1)] == [
        "a-vs-b-vs-c#0", "a-vs-b-vs-d#0", "a-vs-c-vs-d#0", "b-vs-c-vs-d#0"]


def test_a_bracket_names_later_stages_by_position_and_skips_byes() -> None:
    slots = bracket(["a", "b", "c", "d", "e"], 2, 1)
    assert [(slot.label, slot.stage, slot.players) for slot in slots] == [
        ("a-vs-b#0", 1, ("a", "b")), ("c-vs-d#0", 1, ("c", "d")),  # e has a bye
        ("stage2-1#0", 2, None),  # the two winners; e has a bye again
        ("final#0", 3, None),
    ]


def test_a_bracket_is_played_through_to_its_champion(rules: Rules, runner: WasmRunner,
                                                     controller: Controller) -> None:
    entrants = [controller("weak"), controller("loops"), controller("garbage"), controller("strong"),
                controller("traps")]
    tournament = Tournament(rules, runner, entrants, "bracket", 2, rounds=2)
    played = list(tournament.play_all())
    assert [(slot.label, result.players, result.winner) for slot, result in played] == [
        ("weak-vs-loops#0", ("weak", "loops"), "weak"),
        ("weak-vs-loops#1", ("weak", "loops"), "weak"),
        ("garbage-vs-strong#0", ("garbage", "strong"), "strong"),
        ("garbage-vs-strong#1", ("garbage", "strong"), "strong"),
        ("stage2-1#0", ("weak", "strong"), "strong"),
        ("stage2-1#1", ("weak", "strong"), "strong"),
        ("final#0", ("strong", "traps"), "strong"),
        ("final#1", ("strong", "traps"), "strong"),
    ]
    assert tournament.champion() == "strong"


def test_standings_count_points_and_break_ties_by_fuel(rules: Rules, runner: WasmRunner,
                                                       controller: Controller) -> None:
    entrants = [controller("weak"), controller("strong"), controller("loops"), controller("strong", "echo")]
    tournament = Tournament(rules, runner, entrants, "round-robin", 2, rounds=1)
    results = [result for _, result in tournament.play_all()]
    table = {line.name: line.as_dict() for line in standings(results, tournament.names)}
    assert [line.name for line in standings(results, tournament.names)] == ["strong", "echo", "weak", "loops"]
    assert table["strong"] | {"fuel": 0} == {"name": "strong", "house": False, "played": 3, "wins": 2, "draws": 1,
                                             "losses": 0, "forfeits": 0, "points": 7, "fuel": 0, "fuel_per_tick": 12}
    assert table["loops"]["forfeits"] == 3 and table["loops"]["points"] == 0
    assert table["weak"]["points"] == 3  # it outlasted loops


def test_a_failing_referee_is_reported_with_its_own_line(tmp_path: Path, runner: WasmRunner,
                                                         controller: Controller) -> None:
    referee = tmp_path / "broken.py"
    referee.write_text((FILES / "echo_referee.py").read_text().replace(
        'return {"n": state["digit"]}', 'return {"n": state["digits"]}'))
    with pytest.raises(RefereeFailed) as failure:
        play_match(rules_for(referee), runner, [controller("weak"), controller("strong")], seed=0)
    message = str(failure.value)
    assert message.startswith("referee broken.py: observe() raised\n")
    assert f'File "{referee}", line 17, in observe' in message
    assert message.endswith("KeyError: 'digits'")


def test_a_world_that_is_not_json_is_the_referees_fault(tmp_path: Path, runner: WasmRunner,
                                                        controller: Controller) -> None:
    referee = tmp_path / "sets.py"
    referee.write_text((FILES / "echo_referee.py").read_text().replace(
        'return {"n": state["digit"]}', 'return {"n": {state["digit"]}}'))
    with pytest.raises(RefereeFailed, match=r"^referee sets.py: observe\(\) returned a world that is not JSON: "
                                            r"Object of type set is not JSON serializable$"):
        play_match(rules_for(referee), runner, [controller("weak"), controller("strong")], seed=0)


def test_a_controller_past_the_wall_clock_forfeits(runner: WasmRunner, controller: Controller) -> None:
    # A fuel budget too large to run out in time: the wall-clock bound stops the loop instead.
    rules = Rules(referee=Referee(FILES / "echo_referee.py"), entry="act", fuel_per_tick=10**15,
                  max_memory_bytes=4 * 65536, max_ticks=MAX_TICKS, timestep_ms=50.0,
                  action_schema=json.loads((FILES / "action.json").read_text()), wall_timeout_s=0.2)
    result = play_match(rules, runner, [controller("weak"), controller("loops")], seed=1)
    forfeit = result.forfeits["loops"]
    assert (forfeit.kind, forfeit.tick, forfeit.reason) == ("timeout", 3, "tick 3: stopped at the wall-clock limit "
                                                                          "of 0.2 s")
    assert (result.winner, result.ending) == ("weak", "forfeit")
