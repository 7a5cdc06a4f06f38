"""A sweep at scale: what the session holds at its 3rd run and at its last, and what a sweep costs
against one-run sessions, side by side in one run.

Run from the repository root: ``python benchmarks/bench_sweep.py [RUNS] [SINGLES]`` (default 40
and 4; SINGLES 0 leaves out the CPU comparisons, for the held figures alone). The runs are
copies of the tests' static demo game (`tests/run/browser/games/good`: a build, two checks in
Chromium, a proof). It prints:

- the open files, threads, resident memory of the pytest process tree (Chromium and Node
  aside) and the scratch disk (`tcab-*` under TMPDIR), sampled in `pytest_tcab_run_finished`
  once the run let go, at run 3 and at run RUNS, for `--tcab-media=all` and `none` (TMPDIR is a
  folder of the benchmark's own, so other sessions on the host are not counted). The sweep
  has RUNS + 1 runs: the last run's sample comes after the session's own teardown (its browser
  gone), which would flatter the figure. `runs' disk` is the scratch but Chromium's profile (the
  session's browser's: it held a 4 MiB metrics file from about 90 s after Chromium started, until
  the launcher put placeholders where Chromium writes them, `session.METRICS_PLACEHOLDERS`);
- the sweep's CPU (the session and every process it waited for) against one-run sessions:
  SINGLES of them are timed and their median times RUNS stands for the RUNS one-run sessions;
- `-n 2` against serial, wall and CPU (`--tcab-media=none`).
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
GAMES = REPO / "tests" / "run" / "browser" / "games"
ASIDE = ("chrom", "headless", "node")
"""Processes left out of the samples by the start of their name: the browser and the Node judge
(and Playwright's driver) are measured by their own bounds, not the session's."""

SAMPLER = '''
import json
import os
import tempfile
from pathlib import Path

import pytest

ASIDE = {aside!r}


def tree(root):
    children = {{}}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = Path(f"/proc/{{entry}}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            children.setdefault(int(fields[1]), []).append(int(entry))
    found, stack = [], [root]
    while stack:
        pid = stack.pop()
        found.append(pid)
        stack.extend(children.get(pid, []))
    return found


def du(path, profile=False):
    """The bytes under `path`: all of them, or (`profile`) only those of Chromium's profile."""
    total = 0
    for folder, dirs, files in os.walk(path):
        if profile and "/playwright_chromiumdev_profile-" not in folder + "/":
            continue
        for name in files:
            try:
                total += os.lstat(os.path.join(folder, name)).st_blocks * 512
            except OSError:
                pass
    return total


@pytest.hookimpl(wrapper=True)
def pytest_tcab_run_finished(config, run):
    yield
    files = threads = rss = 0
    for pid in tree(os.getpid()):
        try:
            comm = Path(f"/proc/{{pid}}/comm").read_text().strip()
            if comm.startswith(ASIDE):
                continue
            status = dict(line.split(":", 1) for line in Path(f"/proc/{{pid}}/status").read_text().splitlines())
            files += len(os.listdir(f"/proc/{{pid}}/fd"))
        except OSError:
            continue
        threads += int(status["Threads"])
        rss += int(status["VmRSS"].split()[0]) * 1024
    scratch = Path(tempfile.gettempdir())
    disk = sum(du(path) for path in scratch.glob("tcab-*"))
    profile = sum(du(path, profile=True) for path in scratch.glob("tcab-*"))
    with open(os.environ["TCAB_SAMPLES"], "a") as log:
        log.write(json.dumps({{"run": run.label, "files": files, "threads": threads, "rss": rss, "disk": disk,
                              "runs' disk": disk - profile}}) + "\\n")
'''


def make_sweep(root: Path, runs: int) -> list[Path]:
    """The games suite and `runs` copies of its good run, under `root`."""
    shutil.copytree(GAMES / "suite", root / "suite")
    made = []
    for index in range(runs):
        run = root / "runs" / f"good-{index:03d}"
        shutil.copytree(GAMES / "good", run)
        (run / ".tcab").mkdir(exist_ok=True)
        (run / ".tcab" / "run.toml").write_text('case = "demo"\n')
        made.append(run)
    (root / "conftest.py").write_text(SAMPLER.format(aside=ASIDE))
    return made


def session(root: Path, runs: list[Path], *extra: str,
            env: dict[str, str] | None = None) -> tuple[float, float, list[dict[str, int]]]:
    """Wall and CPU seconds of one pytest session over `runs` (with `env` besides), and its samples."""
    samples = root / "samples.jsonl"
    samples.unlink(missing_ok=True)
    out = Path(tempfile.mkdtemp(prefix="out-", dir=root))
    argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--tcab-suite={root / 'suite'}",
            f"--tcab-out={out}", *extra, *(f"--tcab-run={run}" for run in runs)]
    scratch = root / "tmp"  # the session's own: /tmp holds every other session's tcab-* folders on a shared host
    scratch.mkdir(exist_ok=True)
    env = {**os.environ, **(env or {}), "TCAB_SAMPLES": str(samples), "TMPDIR": str(scratch)}
    start = time.monotonic()
    proc = subprocess.Popen(argv, cwd=root, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    shutil.rmtree(out, ignore_errors=True)
    found = [json.loads(line) for line in samples.read_text().splitlines()] if samples.exists() else []
    return wall, usage.ru_utime + usage.ru_stime, found


def mib(value: float) -> str:
    return f"{value / 2**20:.1f} MiB"


def held(samples: list[dict[str, int]], media: str) -> list[str]:
    if len(samples) < 3:
        return [f"media={media}: only {len(samples)} runs sampled"]
    third, last = samples[2], samples[-2]
    lines = []
    for key, shown in (("files", str), ("threads", str), ("rss", mib), ("disk", mib), ("runs' disk", mib)):
        a, b = third[key], last[key]
        growth = (b - a) / a if a else 0.0
        lines.append(f"  media={media:<4} {key:<10} run 3 {shown(a):>10}   run {len(samples) - 1} {shown(b):>10}   "
                     f"{growth:+.1%}")
    return lines


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    singles = int(sys.argv[2]) if len(sys.argv) > 2 else 4
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="bench-sweep-", dir="/tmp") as scratch:
        root = Path(scratch)
        made = make_sweep(root, runs + 1)
        lines = [f"sweep of {runs} copies of the demo game; {singles} one-run sessions stand for {runs}"]
        serial_none = serial_cpu = 0.0
        for media in ("all", "none"):
            wall, cpu, samples = session(root, made, f"--tcab-media={media}")
            lines += held(samples, media)
            if not singles:
                lines.append(f"  media={media:<4} sweep wall {wall:.1f} s, CPU {cpu:.1f} s")
                continue
            one = [session(root, [made[index]], f"--tcab-media={media}")[1] for index in range(singles)]
            alone = statistics.median(one) * len(made)
            lines.append(f"  media={media:<4} CPU: sweep {cpu:.1f} s   {runs} one-run sessions {alone:.1f} s   "
                         f"A/B {cpu / alone:.2f}x   ({len(made)} runs)   (sweep wall {wall:.1f} s)")
            serial_none, serial_cpu = wall, cpu  # `none` comes last
        if singles:
            wall2, cpu2, _ = session(root, made, "--tcab-media=none", "-n", "2")
            lines.append(f"  -n 2 against serial (media=none): wall {wall2:.1f} s / {serial_none:.1f} s = "
                         f"{wall2 / serial_none:.2f}x   CPU {cpu2:.1f} s / {serial_cpu:.1f} s = {cpu2 / serial_cpu:.2f}x")
    load = os.getloadavg()[0]
    lines.append(f"({time.monotonic() - started:.0f} s in all; load average {load:.1f} at the end; "
                 f"{os.cpu_count()} cores; children's rusage {resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime:.0f} s)")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
