"""A tiny adversarial suite (the echo game of tournament/echo_referee.py) with WAT controllers as runs.

Each run's `[build]` copies a module compiled in-process from `tournament/<name>.wat`, so no
Rust toolchain is needed; the referee, schemas and house controllers are the suite's own files.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path

import wasmtime

FILES = Path(__file__).parent / "run" / "wasm" / "tournament"
VERSION = Path("suite/test-cases/adversarial/easy/echo/v1.0.0")
MANIFEST = VERSION / "test-case.toml"
RUNS = Path("suite/runs")
ARGS = ("--tcab-suite=suite", "-p", "no:faulthandler")
"""faulthandler stays out of inner sessions: it would replace wasmtime's trap handlers."""
RENDERER = """<!doctype html>
<html><head><meta charset="utf-8"><title>Echo replay</title></head>
<body><pre id="out"></pre>
<script>
const log = window.TCAB_REPLAY, speed = window.TCAB_REPLAY_SPEED || 1;
let i = 0;
const timer = setInterval(() => {
  const frame = log.frames[Math.min(i, log.frames.length - 1)];
  document.getElementById("out").textContent = JSON.stringify(frame);
  if (++i >= log.frames.length) { clearInterval(timer); window.TCAB_REPLAY_DONE = true; }
}, log.timestep_ms / speed);
</script></body></html>
"""


def manifest(*, house: Sequence[str] = (), structure: str = "round-robin", rounds: int = 1, max_ticks: int = 200,
             fuel_per_tick: int = 10_000, participants: int = 2, renderer: bool = False) -> str:
    houses = ", ".join(f'"house/{name}.wat"' for name in house)
    replay = '\n[replay]\nrenderer = "replay/index.html"\n' if renderer else ""
    return f"""\
slug = "echo"
name = "Echo"
difficulty = "easy"
tags = []
changelog = "changelog.md"
prompt = "prompt.hbs"
type = "adversarial"

[build]
install = "true"
build = "mkdir -p target && cp prebuilt/controller.wasm target/c.wasm"
module = "target/c.wasm"

[contract]
entry = "act"
world = "schemas/world.json"
action = "schemas/action.json"

[sandbox]
fuel_per_tick = {fuel_per_tick}
max_memory_bytes = 262_144

[simulation]
referee = "referee/echo.py"
timestep_ms = 50
max_ticks = {max_ticks}

[match]
participants = {participants}
structure = "{structure}"
rounds = {rounds}
house = [{houses}]
{replay}"""


def write_suite(root: Path, runs: dict[str, str], **keys: object) -> list[Path]:
    """The suite `root/suite` with case `echo`, and a run `suite/runs/<run>` per entry (run -> WAT name)."""
    folder = root / VERSION
    files = {
        "test-case.toml": manifest(**keys),  # type: ignore[arg-type]
        "changelog.md": "Introduced.\n",
        "prompt.hbs": "Write a controller in {{workspace}}.\n",
        "schemas/world.json": '{"type": "object", "required": ["n"]}\n',
        "schemas/action.json": (FILES / "action.json").read_text(),
        "referee/echo.py": (FILES / "echo_referee.py").read_text(),
        "replay/index.html": RENDERER,
    }
    for name in keys.get("house", ()):  # type: ignore[attr-defined]
        files[f"house/{name}.wat"] = (FILES / f"{name}.wat").read_text()
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    made = []
    for run, wat in runs.items():
        made.append(write_run(root / RUNS / run, wat))
    return made


def write_run(path: Path, wat: str) -> Path:
    if path.exists():
        shutil.rmtree(path)
    (path / ".tcab").mkdir(parents=True)
    (path / ".tcab/run.toml").write_text('case = "echo"\n')
    (path / "prebuilt").mkdir()
    (path / "prebuilt/controller.wasm").write_bytes(bytes(wasmtime.wat2wasm((FILES / f"{wat}.wat").read_text())))
    return path
