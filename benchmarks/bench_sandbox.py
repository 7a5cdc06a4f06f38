"""What the bwrap sandbox costs a build: the example builds with and without it, side by side.

Run from the repository root: ``python benchmarks/bench_sandbox.py [ROUNDS]`` (default 3). Each
round builds each example in a fresh copy once sandboxed and once not, alternating which goes
first, and prints the median time of every step and the ratio. Examples whose tools are missing
(Debian's cargo with the wasm32 target for the Rust one) are left out with the reason.
"""

from __future__ import annotations

import shutil
import statistics
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pytest_tcab.run.sandbox.sandbox import Sandbox
from pytest_tcab.run.sandbox.steps import build_environment
from pytest_tcab.run.sandbox.steps import prepare_workdir
from pytest_tcab.run.sandbox.steps import run_command

SUITE = Path(__file__).resolve().parent.parent / "example-suite"


@dataclass(frozen=True)
class Example:
    name: str
    source: Path
    steps: tuple[tuple[str, str], ...]
    needs: str


EXAMPLES = (
    Example("empty (true): the sandbox's fixed cost", SUITE / "runs/bounce", (("build", "true"),), "true"),
    Example("carom (npm ci, npm run build: esbuild)", SUITE / "runs/carom-base",
            (("install", "npm ci"), ("build", "npm run build")), "npm"),
    Example("bounce (cargo build --offline --release, wasm32)", SUITE / "runs/bounce",
            (("build", "cargo build --offline --release --target wasm32-unknown-unknown"),), "cargo"),
)
"""The example runs' own `[build]` commands."""


def build_once(example: Example, sandbox: Sandbox, scratch: Path) -> list[float]:
    workdir = prepare_workdir(example.source, scratch)
    env = build_environment()
    env["PATH"] = "/usr/bin:" + env.get("PATH", "")  # Debian's cargo carries wasm32 (scripts/example)
    times = []
    for step, command in example.steps:
        result = run_command(command, workdir.path, 600, env, sandbox=sandbox, step=step)
        if not result.ok:
            raise SystemExit(f"{example.name}: `{command}` failed ({sandbox.kind}):\n{result.tail()}")
        times.append(result.duration_s)
    return times


def main(rounds: int) -> None:
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        raise SystemExit("bwrap is not installed: apt-get install bubblewrap")
    sides = {"bwrap": Sandbox(bwrap, "install"), "none": Sandbox(None, "install")}
    print(f"{'example / step':<58} {'none':>8} {'bwrap':>8} {'ratio':>6} {'added':>8}")
    for example in EXAMPLES:
        if shutil.which(example.needs, path="/usr/bin:" + str(Path(sys.executable).parent)) is None:
            print(f"{example.name}: skipped, {example.needs} is not installed")
            continue
        times: dict[str, list[list[float]]] = {"bwrap": [], "none": []}
        with tempfile.TemporaryDirectory(prefix="tcab-bench-") as scratch:
            for i in range(rounds):
                order = ("none", "bwrap") if i % 2 == 0 else ("bwrap", "none")
                for side in order:
                    times[side].append(build_once(example, sides[side], Path(scratch)))
        for index, (step, command) in enumerate(example.steps):
            plain = statistics.median(run[index] for run in times["none"])
            boxed = statistics.median(run[index] for run in times["bwrap"])
            label = f"{example.name.split(' ')[0]} {step}: {command}"
            print(f"{label[:58]:<58} {plain:>7.3f}s {boxed:>7.3f}s {boxed / plain:>5.2f}x {boxed - plain:>+7.3f}s")
    print(f"medians of {rounds} rounds, each step in a fresh copy; bwrap: {bwrap}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
