"""What a sweep's session keeps from run to run, and where it was allocated: the trace behind
`bench_sweep.py`'s resident memory figure.

Run from the repository root: ``python benchmarks/trace_sweep.py [RUNS] [MEDIA]`` (default 40 and
`all`). One session over RUNS + 1 copies of the demo game (`bench_sweep.make_sweep`), with
tracemalloc on from its `pytest_configure`; at run 3, at the middle run and at run RUNS (in
`pytest_tcab_run_finished`, once the run let go, after `gc.collect()`) the conftest samples:

- the Python heap tracemalloc counts (what Python holds) against the process's resident memory,
  and the resident memory once more after glibc's `malloc_trim(0)` gave back the free pages it
  could (what stays after that is held, or fragments of the allocator's arenas);
- the live objects by type (`gc.get_objects`), and a tracemalloc snapshot.

It prints those figures, the types whose count grew, and the allocation sites (a traceback of
up to 12 frames) that grew most from run 3 to run RUNS, as bytes per run. Tracing slows the
session and costs memory of its own, so its figures are for the growth, not for the totals of
`bench_sweep.py`.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_sweep import REPO  # noqa: E402
from bench_sweep import make_sweep  # noqa: E402
from bench_sweep import mib  # noqa: E402
from bench_sweep import session  # noqa: E402

TRACER = '''

import collections
import ctypes
import gc
import sys
import tracemalloc
import types

TRACED = {3, MIDDLE, LAST}
_seen = []


def pytest_configure(config):
    tracemalloc.start(12)


def _deep(root):
    """Bytes of `root` and of everything it reaches but modules, types and functions."""
    seen, stack, total = set(), [root], 0
    while stack:
        thing = stack.pop()
        if id(thing) in seen or isinstance(thing, (type, types.ModuleType, types.FunctionType)):
            continue
        seen.add(id(thing))
        total += sys.getsizeof(thing)
        stack.extend(gc.get_referents(thing))
    return total


def _holders(config):
    """What the session keeps on purpose, by holder: pytest's reports (its terminal summary's),
    their `tcab` part, the results recorder's runs and the sweep writer's rows."""
    reports = [report for kept in config.pluginmanager.get_plugin("terminalreporter").stats.values()
               for report in kept]
    recorder = config.pluginmanager.get_plugin("tcab-results")
    writer = config.pluginmanager.get_plugin("tcab-sweep")
    return {"reports": _deep(reports), "reports' tcab": _deep([getattr(report, "tcab", None) for report in reports]),
            "recorder's runs": _deep(recorder.runs) if recorder else 0,
            "sweep's rows": _deep(writer.rows) if writer else 0}


def _rss():
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


@pytest.hookimpl(wrapper=True, trylast=True)
def pytest_tcab_run_finished(config, run):
    yield
    _seen.append(run.label)
    index = len(_seen)
    if index not in TRACED:
        return
    gc.collect()
    before = _rss()
    ctypes.CDLL("libc.so.6").malloc_trim(0)
    trimmed = _rss()
    kinds = collections.Counter(type(thing).__qualname__ for thing in gc.get_objects())
    tracemalloc.take_snapshot().dump(os.path.join(os.environ["TCAB_TRACE"], f"run-{index}.snapshot"))
    with open(os.path.join(os.environ["TCAB_TRACE"], "trace.jsonl"), "a") as log:
        log.write(json.dumps({"run": index, "traced": tracemalloc.get_traced_memory()[0], "rss": before,
                              "trimmed": trimmed, "types": kinds,
                              "holders": _holders(config)}) + "\\n")
'''


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    media = sys.argv[2] if len(sys.argv) > 2 else "all"
    middle = (3 + runs) // 2
    with tempfile.TemporaryDirectory(prefix="trace-sweep-", dir="/tmp") as scratch:
        root = Path(scratch)
        made = make_sweep(root, runs + 1)
        with (root / "conftest.py").open("a") as conftest:
            conftest.write(TRACER.replace("MIDDLE", str(middle)).replace("LAST", str(runs)))
        trace = root / "trace"
        trace.mkdir()
        wall, _, _ = session(root, made, f"--tcab-media={media}", env={"TCAB_TRACE": str(trace)})
        samples = {entry["run"]: entry for entry in map(json.loads, (trace / "trace.jsonl").read_text().splitlines())}
        print(f"traced sweep of {runs} copies of the demo game, --tcab-media={media} ({wall:.0f} s)")
        for index, entry in sorted(samples.items()):
            print(f"  run {index:>3}: traced {mib(entry['traced']):>10}   resident {mib(entry['rss']):>10}   "
                  f"after malloc_trim {mib(entry['trimmed']):>10}   objects {sum(entry['types'].values()):>8}")
        first, last = samples[3], samples[runs]
        per_run = runs - 3
        print(f"kept on purpose, run 3 -> run {runs} (bytes per run):")
        for name, size in last["holders"].items():
            grown = (size - first["holders"][name]) / per_run
            print(f"  {name:<20} {mib(first['holders'][name]):>10} -> {mib(size):>10}   {grown:+.0f} B")
        print(f"  traced in all        {mib(first['traced']):>10} -> {mib(last['traced']):>10}   "
              f"{(last['traced'] - first['traced']) / per_run:+.0f} B")
        grown = {name: last["types"].get(name, 0) - count for name, count in first["types"].items()}
        grown.update({name: count for name, count in last["types"].items() if name not in first["types"]})
        print(f"objects grown from run 3 to run {runs} (per run):")
        for name, count in sorted(grown.items(), key=lambda pair: -pair[1])[:15]:
            if count > 0:
                print(f"  {name:<40} +{count:>6}   {count / per_run:+.1f}")
        kept = Path(tempfile.gettempdir()) / "trace-sweep-snapshots"
        shutil.copytree(trace, kept, dirs_exist_ok=True)  # for a closer look afterwards
        print(f"(snapshots kept in {kept})")
        older = tracemalloc.Snapshot.load(str(trace / "run-3.snapshot"))
        newer = tracemalloc.Snapshot.load(str(trace / f"run-{runs}.snapshot"))
        print(f"allocation lines grown most from run 3 to run {runs} (bytes per run, blocks per run):")
        for stat in newer.compare_to(older, "lineno")[:15]:
            if stat.size_diff > 0:
                frame = stat.traceback[0]
                print(f"  {stat.size_diff / per_run:>+8.0f} B {stat.count_diff / per_run:>+6.1f}   "
                      f"{frame.filename.split('site-packages/')[-1].removeprefix(str(REPO) + '/')}:{frame.lineno}")
        print("the three tracebacks grown most (most recent call first):")
        for stat in newer.compare_to(older, "traceback")[:3]:
            print(f"  {stat.size_diff / per_run:>+8.0f} B per run")
            for frame in list(reversed(stat.traceback))[:8]:
                print(f"      {frame.filename.split('site-packages/')[-1].removeprefix(str(REPO) + '/')}:{frame.lineno}")


if __name__ == "__main__":
    main()
