"""A tournament's cost: 8 controllers, round-robin, 3 rounds, every match played to 1,000 ticks.

    PATH=/usr/bin:$PATH python benchmarks/bench_tournament.py

The example's Duel (its referee, its house controller and its two Rust controllers, built
with Debian's cargo) with the referee's winning score raised out of reach, so every one of
the 84 matches runs the full 1,000 ticks: the worst case of the brief's "under a minute on 2
cores" (one core is used). Prints the wall time, ticks and controller calls per second, and
the module load from the compiled-module cache against a fresh compile.
CPU time is the figure (a loaded host stretches the wall clock, not the work);
`tournament_ticks_per_second()` is the figure `benchmarks/run.py` reports.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import time
from pathlib import Path

import wasmtime

from pytest_tcab.run.wasm.referee import Referee
from pytest_tcab.run.wasm.runner import LoadedModule
from pytest_tcab.run.wasm.runner import WasmRunner
from pytest_tcab.run.wasm.tournament import Entrant
from pytest_tcab.run.wasm.tournament import Rules
from pytest_tcab.run.wasm.tournament import Tournament
from pytest_tcab.run.wasm.tournament import standings
from pytest_tcab.run.wasm.tournament import standings_table

SUITE = Path(__file__).resolve().parent.parent / "example-suite"
DUEL = SUITE / "versions/v1.0.0/duel"
RUNS = {"sharp": SUITE / "runs/duel-sharp", "lazy": SUITE / "runs/duel-lazy"}
MODULE = Path("target/wasm32-unknown-unknown/release/duel.wasm")
TICKS = 1_000
ROUNDS = 3
ENTRANTS = ("sharp", "lazy", "follower", "sharp", "lazy", "follower", "sharp", "lazy")
"""Eight controllers; the same module entered twice plays as two controllers."""

ENDLESS_REFEREE = """\
import importlib.util

_spec = importlib.util.spec_from_file_location("duel_rules", {path!r})
_duel = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_duel)
_duel.WIN_SCORE = 10**9  # no one wins: every match runs to max_ticks

new_match, observe, apply, step, frame = _duel.new_match, _duel.observe, _duel.apply, _duel.step, _duel.frame
"""


def build_controllers(scratch: Path) -> dict[str, Path]:
    """The Rust controllers built by cargo (as their runs' [build] does), the house one from WAT."""
    modules = {}
    for name, crate in RUNS.items():
        subprocess.run(["cargo", "build", "--offline", "--release", "--target", "wasm32-unknown-unknown", "-q"],
                       cwd=crate, check=True, env={**os.environ, "CARGO_TARGET_DIR": str(scratch / name)})
        modules[name] = scratch / name / MODULE.relative_to("target")
    follower = scratch / "follower.wasm"
    follower.write_bytes(bytes(wasmtime.wat2wasm((DUEL / "house/follower.wat").read_text())))
    modules["follower"] = follower
    return modules


def play(runner: WasmRunner, modules: dict[str, LoadedModule], scratch: Path) -> tuple[float, float, Tournament]:
    referee = scratch / "endless_duel.py"
    referee.write_text(ENDLESS_REFEREE.format(path=str(DUEL / "referee.py")))
    rules = Rules(referee=Referee(referee), entry="act", fuel_per_tick=1_000_000, max_memory_bytes=16 << 20,
                  max_ticks=TICKS, timestep_ms=20.0, action_schema=json.loads((DUEL / "schemas/action.json").read_text()),
                  wall_timeout_s=60.0)
    entrants = [Entrant(f"{kind}-{i}", modules[kind]) for i, kind in enumerate(ENTRANTS, start=1)]
    tournament = Tournament(rules, runner, entrants, "round-robin", 2, ROUNDS)
    start, cpu = time.perf_counter(), time.process_time()
    results = [result for _, result in tournament.play_all()]
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    assert all(result.ticks == TICKS for result in results), "every match must run to max_ticks"
    return elapsed, cpu, tournament


def tournament_ticks_per_second() -> float:
    """Match ticks per second of the benchmark tournament (each tick calls both controllers once)."""
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        paths = build_controllers(scratch)
        with WasmRunner(scratch / "cache") as runner:
            modules = {name: runner.load(path, "act") for name, path in paths.items()}
            _, cpu, tournament = play(runner, modules, scratch)
    return len(tournament.schedule()) * TICKS / cpu


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        paths = build_controllers(scratch)
        with WasmRunner(scratch / "cache") as runner:
            start = time.perf_counter()
            modules = {name: runner.load(path, "act") for name, path in paths.items()}
            fresh = time.perf_counter() - start
        with WasmRunner(scratch / "cache") as runner:
            start = time.perf_counter()
            modules = {name: runner.load(path, "act") for name, path in paths.items()}
            cached = time.perf_counter() - start
            assert all(module.cached for module in modules.values())
            elapsed, cpu, tournament = play(runner, modules, scratch)
    matches = len(tournament.schedule())
    ticks = matches * TICKS
    print(f"{len(ENTRANTS)} controllers, round-robin, {ROUNDS} rounds: {matches} matches of {TICKS:,} ticks")
    print(f"  played in {cpu:.1f} s of CPU ({elapsed:.1f} s wall clock on a host with load average "
          f"{os.getloadavg()[0]:.1f}): {ticks / cpu:,.0f} ticks/s, {2 * ticks / cpu:,.0f} controller calls/s of CPU")
    print(f"  module loads: fresh compile {fresh * 1000:.1f} ms, from the cache {cached * 1000:.1f} ms "
          f"({fresh / cached:.0f}x faster)")
    results = [tournament.play(tournament.players_of(slot), slot.seed) for slot in tournament.schedule()]
    for line in standings_table(standings(results, tournament.names)):
        print(f"  {line}")


if __name__ == "__main__":
    main()
