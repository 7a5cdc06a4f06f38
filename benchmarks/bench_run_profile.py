"""Where one run's time goes: each step's wall time, the run's critical path, and the run's wall
time as a ratio to it.

Run from the repository root: ``python benchmarks/bench_run_profile.py [RUN] [ROUNDS]`` (default
``example-suite/runs/carom-e2e`` and 1). Each round grades the run in a pytest session of its own
with a small plugin that stamps every item's phases (setup, call, teardown: each report's own
start and stop), and prints per step its wall time, then:

- the critical path: the longest chain of steps that must follow each other. The build comes
  first and every item that needs its output (the browser's, the judge's, proofs) follows it one
  after the other, since they share one browser; a toolchain step reads only the sources, so it is
  a chain of its own, counted by its step's own time (`duration_s`): begun beside the build, its
  item only waits for it;
- the run's wall time (first item's setup to last item's teardown, and the whole process with its
  start-up) as a ratio to the critical path.

With several rounds the first is a warm-up (caches of npm and the browser) and the medians of
the others are printed.

``python benchmarks/bench_run_profile.py --sweep [RUNS]`` (default 8) gives the sweep-level figure,
side by side in one run: RUNS copies of the run (each its own build: no `--tcab-share-builds`)
graded serially, under ``-n 2``, and serially with ``--tcab-concurrency=2``, after one warm-up
session. For each: the sweep's wall time, the sum of its runs' critical paths divided by the
workers (the least wall time those workers could take), the ratio of the two, the wall time as
a ratio to the serial one, and how busy the host's cores were meanwhile (near 100%, the host is
the bound, not the order in which the runs wait). A run's build counts by its steps' own time (what its build item
records), not its item's: a build begun early leaves its item little to wait for.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from typing import NamedTuple

REPO = Path(__file__).resolve().parent.parent
BESIDE = ("toolchain",)
"""Item kinds that depend only on the run's sources: each is a chain of its own."""

STAMPER = '''
import json
import os


def pytest_runtest_logreport(report):
    data = getattr(report, "tcab", None) or {}
    kind = data.get("item", {}).get("kind", "?")
    figures = data.get("figures", {})
    steps = figures.get("steps") or []
    with open(os.environ["TCAB_PROFILE"], "a") as log:
        log.write(json.dumps({"nodeid": report.nodeid, "kind": kind, "when": report.when,
                              "start": report.start, "stop": report.stop,
                              "steps_s": sum(step.get("duration_s", 0.0) for step in steps),
                              "step_s": figures.get("duration_s")}) + "\\n")
'''


class Session(NamedTuple):
    wall: float
    """The process's wall seconds, start-up included."""
    busy: float
    """The host's busy share over the session (/proc/stat, every process: the session's sandboxed
    steps, Node and Chromium, which no rusage of the session counts whole): near 1, the host is
    the bound, however the runs are scheduled; a wait shows as idle."""
    stamps: list[dict[str, Any]]


def session(run: Path, scratch: Path, *options: str) -> Session:
    """One session grading `run` (a run, or a folder of runs: a sweep), with `options`."""
    stamps = scratch / "stamps.jsonl"
    stamps.unlink(missing_ok=True)
    out = Path(tempfile.mkdtemp(prefix="out-", dir=scratch))
    env = {**os.environ, "TCAB_PROFILE": str(stamps),
           "PYTHONPATH": os.pathsep.join(filter(None, [str(scratch), os.environ.get("PYTHONPATH")]))}
    argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "tcab_profile_stamper",
            f"--tcab-suite={REPO / 'example-suite'}", f"--tcab-run={run}", f"--tcab-out={out}", *options]
    start, before = time.monotonic(), _host_times()
    subprocess.run(argv, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    wall, after = time.monotonic() - start, _host_times()
    busy = (after[0] - before[0]) / max(1, sum(after) - sum(before))
    shutil.rmtree(out, ignore_errors=True)
    found = [json.loads(line) for line in stamps.read_text().splitlines()] if stamps.exists() else []
    # Under xdist the controller logs each report again: one stamp per phase.
    return Session(wall, busy, list({(stamp["nodeid"], stamp["when"]): stamp for stamp in found}.values()))


def _host_times() -> tuple[int, int]:
    """The host's CPU time so far, busy and idle (in clock ticks, every core: /proc/stat's first line)."""
    fields = [int(field) for field in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle, iowait
    return sum(fields[:8]) - idle, idle


def profile(stamps: list[dict[str, Any]]) -> tuple[dict[str, tuple[str, float]], float, float]:
    """Per item (in order) its kind and wall time over its phases; the critical path; the items' wall."""
    steps: dict[str, tuple[str, float]] = {}
    for stamp in stamps:
        kind, took = steps.get(str(stamp["nodeid"]), (str(stamp["kind"]), 0.0))
        phase = float(stamp["stop"]) - float(stamp["start"])
        if kind == "build" and stamp["when"] == "call":  # its steps' time: begun early, its item only waits
            phase = max(float(stamp.get("steps_s", 0.0)), 0.0) or phase
        if kind in BESIDE and stamp["when"] == "call" and stamp.get("step_s") is not None:  # its step's own time
            phase = float(stamp["step_s"])
        steps[str(stamp["nodeid"])] = (kind, took + phase)
    chain = sum(took for kind, took in steps.values() if kind not in BESIDE)
    beside = [took for kind, took in steps.values() if kind in BESIDE]
    critical = max([chain, *beside])
    wall = max(float(s["stop"]) for s in stamps) - min(float(s["start"]) for s in stamps) if stamps else 0.0
    return steps, critical, wall


SWEEP_MODES = (("serial", ("--tcab-concurrency=1",), 1), ("-n 2", ("-n", "2"), 2),
               ("--tcab-concurrency=2", ("--tcab-concurrency=2",), 1))
"""How the sweep is graded, side by side: a name, the options, the workers (processes grading)."""


def sweep(run: Path, count: int) -> None:
    """The sweep-level figure: `count` copies of `run`, graded in each of :data:`SWEEP_MODES`."""
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="bench-profile-") as folder:
        scratch = Path(folder)
        (scratch / "tcab_profile_stamper.py").write_text(STAMPER)
        runs = scratch / "runs"
        for index in range(count):
            shutil.copytree(run, runs / f"{run.name}-{index + 1}",
                            ignore=shutil.ignore_patterns("node_modules", "dist"))
        session(runs / f"{run.name}-1", scratch)  # warm-up: npm's and the browser's caches
        measured = {name: session(runs, scratch, *options) for name, options, _ in SWEEP_MODES}
    print(f"sweep of {count} copies of {run.relative_to(REPO) if run.is_relative_to(REPO) else run}")
    serial = measured["serial"].wall
    for name, _, workers in SWEEP_MODES:
        wall, busy, stamps = measured[name]
        paths = [profile([stamp for stamp in stamps if stamp["nodeid"].startswith(prefix)])[1]
                 for prefix in sorted({stamp["nodeid"].split("/.tcab/")[0] for stamp in stamps})]
        bound = sum(paths) / workers
        print(f"  {name:<22} wall {wall:6.1f} s = {wall / serial:.2f}x serial; {len(paths)} runs' critical paths "
              f"{sum(paths):6.1f} s / {workers} worker(s) = {bound:6.1f} s; wall = {wall / bound:.2f}x of it; host "
              f"busy {busy:.0%}")
    print(f"  load average {load:.1f} at the start, {os.getloadavg()[0]:.1f} at the end; {os.cpu_count()} cores")


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--sweep":
        sweep((REPO / "example-suite/runs/carom-e2e").resolve(), int(sys.argv[2]) if len(sys.argv) > 2 else 8)
        return
    run = Path(sys.argv[1] if len(sys.argv) > 1 else "example-suite/runs/carom-e2e").resolve()
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="bench-profile-") as folder:
        scratch = Path(folder)
        (scratch / "tcab_profile_stamper.py").write_text(STAMPER)
        measured = [session(run, scratch) for _ in range(rounds)]
    kept = measured[1:] if rounds > 1 else measured
    profiles = [profile(one.stamps) for one in kept]
    if not profiles[0][0]:
        raise SystemExit(f"no item of {run} ran: is it a run folder of example-suite?")
    print(f"run {run.relative_to(REPO) if run.is_relative_to(REPO) else run}"
          f" ({len(kept)} round(s) measured{', after one warm-up' if rounds > 1 else ''})")
    for nodeid, (kind, _) in profiles[0][0].items():
        took = statistics.median(steps[nodeid][1] for steps, _, _ in profiles if nodeid in steps)
        where = "beside the build" if kind in BESIDE else "after the build" if kind != "build" else "first"
        print(f"  {nodeid.rsplit('::', 1)[-1][:60]:<60} {kind:<12} {took:6.2f} s   {where}")
    critical = statistics.median(p[1] for p in profiles)
    items = statistics.median(p[2] for p in profiles)
    process = statistics.median(one.wall for one in kept)
    print(f"  critical path {critical:.2f} s; items' wall {items:.2f} s = {items / critical:.2f}x of it; "
          f"process wall (start-up included) {process:.2f} s = {process / critical:.2f}x")
    print(f"  load average {load:.1f} at the start, {os.getloadavg()[0]:.1f} at the end; {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
