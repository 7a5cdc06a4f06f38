"""A suite with one case of each kind a sweep mixes, and a run of each, all cheap to grade.

`suite/` holds the games fixture's catalog game `demo` (checks and verdicts in Chromium), the
definition suite's end-to-end definition `game` (a shell build and a toolchain step), its
performance definition `perf` (an echo module compiled from WAT), its sprite `hero` (a PNG
reference) and the tournament fixture's adversarial catalog case `echo` (WAT controllers).
`suite/runs/` holds a run of each: `good`, `game`, `perf`, `hero`, and `strong` and `weak`,
who play `echo`'s tournament.
"""

from __future__ import annotations

import io
import shutil
import tempfile
from pathlib import Path

import pytest
import wasmtime
from definition_suite import GAME
from definition_suite import PERF
from definition_suite import VERSION
from definition_suite import write_definition_suite
from PIL import Image
from test_definition_runs import ECHO_WAT
from test_definition_runs import PASSING_TYPECHECK
from test_definition_runs import PERF_DEFINITION
from test_definition_runs import game_definition
from test_definition_runs import write

from tests.tournament_suite import write_suite

GAMES = Path(__file__).resolve().parents[1] / "run" / "browser" / "games"
SUITE = Path("suite")
RUNS = SUITE / "runs"
RUN_NAMES = ("game", "good", "hero", "perf", "strong", "weak")
TOURNAMENT = ("strong", "weak")
ARGS = ("-p", "no:cacheprovider", "-p", "no:faulthandler", f"--tcab-suite={SUITE}")
"""faulthandler stays out of inner sessions: it would replace wasmtime's trap handlers."""


def png(size: tuple[int, int] = (8, 8)) -> bytes:
    out = io.BytesIO()
    Image.new("RGBA", size, (200, 40, 40, 255)).save(out, format="PNG")
    return out.getvalue()


def write_sweep_suite(root: Path) -> Path:
    """The suite and its runs under `root`; returns the folder of runs."""
    suite = root / SUITE
    write_definition_suite(suite)
    write_suite(root, {name: name for name in TOURNAMENT})
    shutil.copytree(GAMES / "suite" / "test-cases", suite / "test-cases", dirs_exist_ok=True)
    echo = bytes(wasmtime.wat2wasm(ECHO_WAT))
    write(suite, {
        GAME: game_definition(PASSING_TYPECHECK),
        PERF: PERF_DEFINITION,
        VERSION / "cases/tiny.json": '{"n": 1}\n',
        VERSION / "cases/big.json": '{"n": 2}\n',
        VERSION / "assets/hero/hero.png": png(),
    })
    runs = root / RUNS
    shutil.copytree(GAMES / "good", runs / "good")
    write(runs, {
        Path("good/.tcab/run.toml"): 'case = "demo"\n',
        Path("game/.tcab/run.toml"): 'case = "game"\nengine = "none"\n',
        Path("game/index.html"): "<!doctype html><title>game</title>\n",
        Path("perf/.tcab/run.toml"): 'case = "perf"\n',
        Path("perf/prebuilt/echo.wasm"): echo,
        Path("hero/.tcab/run.toml"): 'case = "hero"\n',
        Path("hero/assets/hero/hero.png"): png(),
    })
    return runs


def observed(pytester: pytest.Pytester, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch,
             observer: str, log_variable: str) -> tuple[Path, Path]:
    """Ready a sweep to be watched: its scratch (TMPDIR), a fresh folder under /tmp (short: Chromium's
    sockets live under it) removed afterwards, and `observer`, its conftest, writing to the log
    `log_variable` names; returns the scratch and the log."""
    scratch = Path(tempfile.mkdtemp(prefix="sweep-", dir="/tmp"))
    request.addfinalizer(lambda: shutil.rmtree(scratch, ignore_errors=True))
    log = pytester.path / f"{log_variable.lower()}.log"
    monkeypatch.setenv("TMPDIR", str(scratch))
    monkeypatch.setenv(log_variable, str(log))
    pytester.makeconftest(observer)
    return scratch, log
