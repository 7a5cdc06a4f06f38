"""How even the shards of a sweep are: the slowest shard's time in ratio to the mean shard time,
for the hash plan (the default) and a duration plan (`--tcab-shard-plan`), on real durations.

Run from the repository root: ``python benchmarks/bench_shards.py [SWEEP [PREVIOUS]] [--shards N]``.
SWEEP is a sweep's folder or its sweep.json whose runs' `duration_s` are what each shard would
take; without it, the example sweep's 24 runs (`scripts/example_sweep.py`) are graded once, serially,
and their sweep.json is used. The duration plan is dealt from PREVIOUS (default: SWEEP itself, the
plan of a night that reruns the same runs); it prints, for N shards (default 4):

- each policy's shard times and the slowest shard over the mean (1.00x is perfectly even);
- the plan dealt from PREVIOUS with a quarter of its runs left out (every fourth by name), so those
  runs are weighed by their case's median, as runs added since the earlier sweep are.

A shard's time here is the sum of its runs' durations (their items' time): the session's own
start (the suite, Chromium) is the same for every shard and left out.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from pytest_tcab.shards import Plan  # noqa: E402
from pytest_tcab.shards import balanced  # noqa: E402
from pytest_tcab.shards import read_durations  # noqa: E402


def example_sweep(folder: Path) -> Path:
    """Grade the example sweep's runs once into `folder`; returns its sweep.json."""
    runs = folder / "runs"
    subprocess.run([sys.executable, str(REPO / "scripts/example_sweep.py"), str(runs)], check=True,
                   stdout=subprocess.DEVNULL)
    out = folder / "out"
    rust = {**os.environ, "PATH": f"/usr/bin:{os.environ.get('PATH', '')}"}  # Debian's Rust first, as scripts/example
    subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", f"--tcab-suite={REPO / 'example-suite'}",
                    f"--tcab-run={runs}", f"--tcab-out={out}", "--tcab-media=none"], cwd=REPO,
                   stdout=subprocess.DEVNULL, check=False, env=rust)
    return out / "sweep.json"


def loads(plan: Plan, durations: dict[str, float]) -> list[float]:
    found = [0.0] * plan.count
    for label, seconds in durations.items():
        found[plan.index_of(label)] += seconds
    return found


def line(name: str, shard_times: list[float]) -> str:
    mean = statistics.fmean(shard_times)
    shown = " ".join(f"{seconds:6.1f}" for seconds in shard_times)
    return f"{name:<34} shards [s]: {shown}   slowest / mean: {max(shard_times) / mean:.2f}x"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sweep", nargs="?", type=Path)
    parser.add_argument("previous", nargs="?", type=Path)
    parser.add_argument("--shards", type=int, default=4)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="tcab-bench-shards-") as scratch:
        sweep = args.sweep or example_sweep(Path(scratch))
        if not args.sweep:  # kept, to measure again without grading: bench_shards.py SWEEP
            kept_copy = REPO / ".tcab" / "bench-shards-sweep.json"
            kept_copy.parent.mkdir(exist_ok=True)
            kept_copy.write_bytes(sweep.read_bytes())
            print(f"(the example sweep's sweep.json is kept as {kept_copy.relative_to(REPO)})")
        seen = read_durations(sweep)
        previous = args.previous or sweep
        durations = {label: seconds for label, (_, seconds) in seen.items()}
        cases = {label: case for label, (case, _) in seen.items()}
        print(f"{len(durations)} runs of {sweep}, {sum(durations.values()):.1f} s in all, over {args.shards} shards "
              f"(the plan from {previous})")
        print(line("hash (the default)", loads(Plan(args.shards), durations)))
        plan = balanced(cases, args.shards, previous)
        print(line("duration plan", loads(plan, durations)))
        earlier = read_durations(previous)
        unseen = sorted(earlier)[1::4]
        partial = Path(scratch) / "partial.json"
        partial.write_text(json.dumps({"runs": [{"run": label, "case": case, "duration_s": seconds, "status": "graded"}
                                                for label, (case, seconds) in earlier.items()
                                                if label not in unseen]}))
        print(line("duration plan, a quarter unseen", loads(balanced(cases, args.shards, partial), durations)))


if __name__ == "__main__":
    main()
