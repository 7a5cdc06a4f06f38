"""The example suite's Duel: its referee and house controller under real wasmtime, and the docs'
standings of its two Rust controllers (built with Debian's cargo where it is installed)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
import wasmtime

from pytest_tcab.run.wasm.referee import Referee
from pytest_tcab.run.wasm.runner import WasmRunner
from pytest_tcab.run.wasm.tournament import Entrant
from pytest_tcab.run.wasm.tournament import Rules
from pytest_tcab.run.wasm.tournament import play_match

pytestmark = pytest.mark.wasm

SUITE = Path(__file__).resolve().parents[3] / "example-suite"
DUEL = SUITE / "versions/v1.0.0/duel"
PAGE = Path(__file__).resolve().parents[3] / "docs/run/tournaments.md"
DEBIAN_CARGO = Path("/usr/bin/cargo")


def test_the_house_controller_plays_itself_to_the_same_end_every_time(runner: WasmRunner, tmp_path: Path) -> None:
    module = tmp_path / "follower.wasm"
    module.write_bytes(bytes(wasmtime.wat2wasm((DUEL / "house/follower.wat").read_text())))
    loaded = runner.load(module, "act")
    rules = Rules(referee=Referee(DUEL / "referee.py"), entry="act", fuel_per_tick=1_000_000,
                  max_memory_bytes=16 << 20, max_ticks=1500, timestep_ms=20.0,
                  action_schema=json.loads((DUEL / "schemas/action.json").read_text()), wall_timeout_s=10.0)
    first, second = (play_match(rules, runner, [Entrant("left", loaded), Entrant("right", loaded)], seed=2)
                     for _ in range(2))
    assert first.forfeits == {} and first.ending in ("won", "draw")
    assert (first.winner, first.ticks, first.fuel, first.frames) == (second.winner, second.ticks, second.fuel,
                                                                     second.frames)
    assert set(first.frames[-1]) == {"tick", "ball", "paddles", "scores"}


@pytest.mark.skipif(not DEBIAN_CARGO.exists() or shutil.which("rust-lld") is None,
                    reason="Debian's cargo and lld build the Rust controllers: scripts/bootstrap --rust")
def test_the_example_tournament_prints_the_documented_standings(pytester: pytest.Pytester, example_suite: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", f"/usr/bin:{os.environ['PATH']}")  # Debian's cargo before rustup's
    result = pytester.runpytest("--tcab-suite=example-suite", "--tcab-run=example-suite/runs/duel-sharp",
                                "--tcab-run=example-suite/runs/duel-lazy", "-k", "not replay")
    result.assert_outcomes(passed=12, deselected=1)
    page = PAGE.read_text()
    shown = page[page.index("$ pytest --tcab-suite=example-suite --tcab-run=example-suite/runs/duel-sharp"):]
    table = shown[shown.index("   #  controller"):shown.index("```")].rstrip("\n").splitlines()
    assert len(table) == 4
    result.stdout.fnmatch_lines(table)
