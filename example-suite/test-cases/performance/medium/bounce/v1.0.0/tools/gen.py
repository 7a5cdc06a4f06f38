"""Writes the bounce cases' inputs and expected answers from a direct Python simulation.

Run from anywhere: `python tools/gen.py [DEST]`; DEST defaults to this version folder and gets
`smoke/` and `cases/`. The simulation is the plain definition in specs/problem.md, kept
obviously right rather than fast, so it is the reference the Rust and WAT solutions match.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

CASES = {
    "smoke/three.json": {"width": 16, "particles": 3, "ticks": 20, "seed": 1},
    "smoke/walls.json": {"width": 16, "particles": 64, "ticks": 1000, "seed": 42},
    "cases/crowd.json": {"width": 10000, "particles": 4000, "ticks": 1500, "seed": 7},
    "cases/long-run.json": {"width": 100, "particles": 500, "ticks": 12000, "seed": 2024},
}

MASK = 0xFFFFFFFF


def simulate(width: int, particles: int, ticks: int, seed: int) -> int:
    """The checksum of the final state, exactly as specs/problem.md defines it."""
    state = seed & MASK

    def draw() -> int:
        nonlocal state
        state = (state * 1664525 + 1013904223) & MASK
        return state >> 8

    xs: list[int] = []
    vs: list[int] = []
    for _ in range(particles):
        xs.append(draw() % width)
        vs.append(draw() % 17 - 8)
    last = width - 1
    for _ in range(ticks):
        for i in range(particles):
            x = xs[i] + vs[i]
            if x < 0:
                x = -x
                vs[i] = -vs[i]
            elif x > last:
                x = 2 * last - x
                vs[i] = -vs[i]
            xs[i] = x
    h = 2166136261
    for x, v in zip(xs, vs, strict=True):
        h = ((h ^ x) * 16777619) & MASK
        h = ((h ^ (v + 8)) * 16777619) & MASK
    return h


def main() -> None:
    dest = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent
    for name, params in CASES.items():
        source = dest / name
        source.parent.mkdir(parents=True, exist_ok=True)
        source.write_text(json.dumps(params) + "\n")
        answer = {"checksum": simulate(**params)}
        source.with_suffix(".out").write_text(json.dumps(answer) + "\n")
        print(f"{name}: {answer}")


if __name__ == "__main__":
    main()
