"""Every performance figure of pytest-tcab, measured side by side in one run.

    python benchmarks/run.py            # the full set (under 15 minutes on 2 cores)
    python benchmarks/run.py --quick    # smaller catalogs and fewer repeats, while developing
    python benchmarks/run.py author templates   # only the named groups

Each line is one figure: what pytest-tcab does (A), what it is compared with (B), both
medians and the ratio A/B. The two sides run alternately in pairs, so a machine that gets
busier or quieter in the middle affects both alike; whole-process figures count the CPU time
of the process and every process it waited for (xdist workers included). Inputs are generated
under a temporary folder: catalogs of N copies of the example suite's catalog cases, and
beside each a baseline of plain pytest files, one per case version with (variants + 2) tests.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "example-suite"
sys.path.insert(0, str(REPO))

GROUPS: dict[str, Callable[[argparse.Namespace, Path], Iterator[str]]] = {}


def group(name: str) -> Callable[[Callable[[argparse.Namespace, Path], Iterator[str]]],
                                 Callable[[argparse.Namespace, Path], Iterator[str]]]:
    def register(fn: Callable[[argparse.Namespace, Path], Iterator[str]]
                 ) -> Callable[[argparse.Namespace, Path], Iterator[str]]:
        GROUPS[name] = fn
        return fn
    return register


# -- reporting ----------------------------------------------------------------------------------


def figure(name: str, a_label: str, a: float, b_label: str, b: float, unit: str) -> str:
    ratio = a / b if b else float("inf")
    return f"{name:<44} {a_label} {_fmt(a, unit):>10}   {b_label} {_fmt(b, unit):>10}   A/B {ratio:7.2f}x"


def _fmt(value: float, unit: str) -> str:
    if unit == "s":
        return f"{value:.2f} s"
    if unit == "ms":
        return f"{value * 1000:.2f} ms" if value < 10 else f"{value * 1000:.0f} ms"
    if unit == "us":
        return f"{value * 1e6:.1f} us"
    return f"{value:,.0f} {unit}"


def paired(a: Callable[[], float], b: Callable[[], float], repeat: int) -> tuple[float, float]:
    """Medians of `repeat` alternating runs of both sides; which side goes first alternates too."""
    a_times: list[float] = []
    b_times: list[float] = []
    for i in range(repeat):
        if i % 2:
            b_times.append(b())
            a_times.append(a())
        else:
            a_times.append(a())
            b_times.append(b())
    return statistics.median(a_times), statistics.median(b_times)


def timed(step: Callable[[], object], inner: int = 1) -> Callable[[], float]:
    """A side that runs `step` `inner` times in this process: seconds per call."""
    def run() -> float:
        start = time.perf_counter()
        for _ in range(inner):
            step()
        return (time.perf_counter() - start) / inner
    return run


@dataclass(frozen=True)
class ProcessCost:
    cpu: float
    """User plus system seconds of the process and every child it waited for."""
    wall: float
    peak_mib: float


def run_process(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> ProcessCost:
    start = time.perf_counter()
    proc = subprocess.Popen(args, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert proc.stdout is not None
    output = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - start
    if proc.returncode not in (0, 1):  # 1: failures are fine, the catalog's run mode flaw is not here
        tail = output.decode(errors="replace")[-3000:]
        raise RuntimeError(f"{' '.join(args)} exited {proc.returncode} in {cwd}:\n{tail}")
    return ProcessCost(usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss / 1024)


# -- generated inputs -------------------------------------------------------------------------


SLUG_LINE = re.compile(r'^slug = "([^"]+)"', re.MULTILINE)


def make_catalog(root: Path, copies: int) -> int:
    """`copies` copies of every catalog case of the example suite, each copy with its own slug.

    Returns the number of case versions written.
    """
    root.mkdir(parents=True)
    shutil.copy2(EXAMPLE / "tcab.toml", root / "tcab.toml")
    for folder in ("packages", "engines"):
        shutil.copytree(EXAMPLE / folder, root / folder)
    cases = sorted(p for p in (EXAMPLE / "test-cases").glob("*/*/*") if p.is_dir())
    versions = 0
    for i in range(copies):
        for case in cases:
            target = root / case.relative_to(EXAMPLE).parent / f"{case.name}-{i}"
            shutil.copytree(case, target)
            for manifest in target.glob(f"*/test-case.toml"):
                text = manifest.read_text()
                manifest.write_text(SLUG_LINE.sub(lambda m: f'slug = "{m.group(1)}-{i}"', text, count=1))
                versions += 1
    return versions


def variant_counts() -> list[int]:
    """How many variants each example catalog case version has, in path order."""
    import tomli

    counts = []
    for manifest in sorted((EXAMPLE / "test-cases").glob("*/*/*/*/test-case.toml")):
        listed = tomli.loads(manifest.read_text()).get("variants") or []
        counts.append(max(1, len(listed)))
    return counts


def make_baseline(root: Path, copies: int) -> None:
    """The plain-pytest side: one trivial test file per case version, variants + 2 tests each."""
    root.mkdir(parents=True)
    counts = variant_counts()
    for i in range(copies):
        for j, variants in enumerate(counts):
            tests = "".join(f"\n\ndef test_{k}():\n    assert {k} == {k}\n" for k in range(variants + 2))
            (root / f"test_case_{i}_{j}.py").write_text(f'"""Case version {i}.{j}."""{tests}')


def make_ini(folder: Path) -> Path:
    """An ini of its own, so the repository's pytest settings stay out of both sides."""
    ini = folder / "pytest.ini"
    ini.write_text("[pytest]\n")
    return ini


def pytest_args(ini: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "pytest", "-c", str(ini), "--rootdir", str(ini.parent), "-q", "-p", "no:randomly",
            *extra]


def bench_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.pop("PYTEST_ADDOPTS", None)
    env.pop("PYTEST_XDIST_AUTO_NUM_WORKERS", None)
    return env


# -- author mode against plain pytest -----------------------------------------------------------


@group("author")
def author(args: argparse.Namespace, tmp: Path) -> Iterator[str]:
    sizes = (20, 200) if args.quick else (200, 2000)
    env = bench_env()
    full_cpu: dict[int, tuple[float, float]] = {}
    for copies in sizes:
        folder = tmp / f"author-{copies}"
        versions = make_catalog(folder / "catalog", copies)
        make_baseline(folder / "baseline", copies)
        ini = make_ini(folder)
        a_base = pytest_args(ini, f"--tcab-suite={folder / 'catalog'}")
        b_base = pytest_args(ini, str(folder / "baseline"))
        # Warm both: imports compiled, assertion-rewritten baseline cached, templates cached.
        run_process(a_base, folder, env)
        run_process(b_base, folder, env)
        repeat = 3 if copies <= 200 or args.quick else 2
        for label, extra in (("collect", ["--collect-only"]), ("full", []),
                             ("collect -n 2", ["--collect-only", "-n", "2"]), ("full -n 2", ["-n", "2"])):
            costs: dict[str, list[ProcessCost]] = {"a": [], "b": []}

            def side(which: str, argv: list[str]) -> Callable[[], float]:
                def run() -> float:
                    cost = run_process(argv, folder, env)
                    costs[which].append(cost)
                    return cost.cpu
                return run

            a_cpu, b_cpu = paired(side("a", a_base + extra), side("b", b_base + extra), repeat)
            yield figure(f"author {label}, {copies} copies ({versions} versions) cpu", "A", a_cpu, "B", b_cpu, "s")
            a_wall = statistics.median(c.wall for c in costs["a"])
            b_wall = statistics.median(c.wall for c in costs["b"])
            a_mem = statistics.median(c.peak_mib for c in costs["a"])
            b_mem = statistics.median(c.peak_mib for c in costs["b"])
            yield figure(f"author {label}, {copies} copies wall", "A", a_wall, "B", b_wall, "s")
            if label == "full":
                full_cpu[copies] = (a_cpu, b_cpu)
                yield figure(f"author {label}, {copies} copies peak memory", "A", a_mem, "B", b_mem, "MiB")
        shutil.rmtree(folder)
    small, large = sizes
    if small in full_cpu and large in full_cpu:
        growth = large / small
        yield (f"{'author full run growth ' + str(small) + ' -> ' + str(large):<44} "
               f"A {full_cpu[large][0] / full_cpu[small][0]:6.1f}x   B {full_cpu[large][1] / full_cpu[small][1]:6.1f}x"
               f"   (catalog {growth:.0f}x)")


# -- the command ------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="smaller catalogs and fewer repeats")
    parser.add_argument("groups", nargs="*", choices=[*GROUPS, []], metavar="GROUP",
                        help=f"only these groups ({', '.join(GROUPS)}); all by default")
    args = parser.parse_args()
    chosen = args.groups or list(GROUPS)
    started = time.perf_counter()
    print(f"# pytest-tcab benchmarks: {os.cpu_count()} cpus, load {os.getloadavg()[0]:.1f}, python "
          f"{sys.version.split()[0]}{' (quick)' if args.quick else ''}", flush=True)
    with tempfile.TemporaryDirectory(prefix="tcab-bench-") as tmp:
        for name in chosen:
            for line in GROUPS[name](args, Path(tmp)):
                print(line, flush=True)
    print(f"# done in {time.perf_counter() - started:.0f} s, load {os.getloadavg()[0]:.1f}", flush=True)


if __name__ == "__main__":
    main()
