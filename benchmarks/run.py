"""Every performance figure of pytest-tcab, measured side by side in one run.

    python benchmarks/run.py            # the full set (meant for 15 minutes on an idle 2-core host)
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
import json
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


def make_catalog(root: Path, copies: int, under: Path = Path()) -> int:
    """`copies` copies of every catalog case of the example suite, each copy with its own slug
    and its own template text (a comment naming the copy), the catalog in `root/under` (its
    tcab.toml, packages and engines at `root`).

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
            target = root / under / case.relative_to(EXAMPLE).parent / f"{case.name}-{i}"
            shutil.copytree(case, target)
            for manifest in target.glob("*/test-case.toml"):
                text = manifest.read_text()
                manifest.write_text(SLUG_LINE.sub(lambda m: f'slug = "{m.group(1)}-{i}"', text, count=1))
                versions += 1
            for template in target.rglob("*.hbs"):  # a real catalog's templates differ from case to case
                template.write_text(f"{{{{!-- copy {i} --}}}}{template.read_text()}")
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
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # both sides import from bytecode, as on a developer's machine
    return env


# -- author mode against plain pytest -----------------------------------------------------------


@group("author")
def author(args: argparse.Namespace, tmp: Path) -> Iterator[str]:
    sizes = tuple(args.copies) if args.copies else (20, 200) if args.quick else (200, 2000)
    env = bench_env()
    full_cpu: dict[int, tuple[float, float]] = {}
    for copies in sizes:
        folder = tmp / f"author-{copies}"
        versions = make_catalog(folder / "catalog", copies)
        make_baseline(folder / "baseline", copies)
        ini = make_ini(folder)
        a_base = pytest_args(ini, f"--tcab-suite={folder / 'catalog'}")
        b_base = pytest_args(ini, str(folder / "baseline"))
        # Warm both: imports compiled, assertion-rewritten baseline cached, templates cached (on both
        # cores: compiling every copy's templates once is most of a cold run).
        run_process(a_base + ["-n", "2"], folder, env)
        run_process(b_base, folder, env)
        repeat = args.repeat or (3 if copies <= 200 or args.quick else 1)
        # No "collect -n 2": pytest-xdist does not distribute --collect-only (it would time the serial
        # collection again); each worker's collection is inside "full -n 2".
        for label, extra in (("collect", ["--collect-only"]), ("full", []), ("full -n 2", ["-n", "2"])):
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
        # The same catalog one folder deeper (suite root/arcade/test-cases/...): layouts are found at any depth.
        make_catalog(folder / "nested", copies, under=Path("arcade"))
        nested = pytest_args(ini, f"--tcab-suite={folder / 'nested'}", "--collect-only")
        run_process(nested, folder, env)
        a_cpu, b_cpu = paired(lambda: run_process(nested, folder, env).cpu,
                              lambda: run_process(a_base + ["--collect-only"], folder, env).cpu, repeat)
        yield figure(f"author collect nested vs flat, {copies} copies cpu", "A", a_cpu, "B", b_cpu, "s")
        shutil.rmtree(folder)
    small, large = min(sizes), max(sizes)
    if small != large and small in full_cpu and large in full_cpu:
        growth = large / small
        yield (f"{'author full run growth ' + str(small) + ' -> ' + str(large):<44} "
               f"A {full_cpu[large][0] / full_cpu[small][0]:6.1f}x   B {full_cpu[large][1] / full_cpu[small][1]:6.1f}x"
               f"   (catalog {growth:.0f}x)")


# -- resolution, templates, image diff, wasm (in this process) --------------------------------


@group("resolve")
def resolution(args: argparse.Namespace, tmp: Path) -> Iterator[str]:
    """Resolving every example catalog version (every rule, files checked) against parsing its TOML."""
    import tomli

    from pytest_tcab.suite import Suite

    suite = Suite(EXAMPLE)
    manifests = suite.manifests
    files = [path for manifest in manifests for path in manifest.parent.rglob("*.toml")]

    def resolve_all() -> None:
        fresh = Suite(EXAMPLE)
        for manifest in manifests:
            fresh.resolve(manifest)

    def parse_all() -> None:
        for path in files:
            tomli.loads(path.read_text(encoding="utf-8"))

    a, b = paired(timed(resolve_all, 5), timed(parse_all, 5), 7 if args.quick else 21)
    yield figure(f"resolve {len(manifests)} versions vs tomli on their {len(files)} files", "A", a, "B", b, "ms")


@group("templates")
def template_cache(args: argparse.Namespace, tmp: Path) -> Iterator[str]:
    """A template made ready (compiled, or read from the disk cache) and rendered once."""
    from pytest_tcab.prompts import catalog_prompt
    from pytest_tcab.suite import Suite
    from pytest_tcab.templates import StrictTemplate
    from pytest_tcab.templates import use_disk_cache

    suite = Suite(EXAMPLE)
    case = next(r.case for m in suite.manifests if (r := suite.resolve(m)).case is not None and len(r.case.variants) > 1)
    rendering = catalog_prompt(case, case.variants[0])
    source = rendering.template.read_text(encoding="utf-8")

    def cached() -> None:
        use_disk_cache(tmp / "templates")
        StrictTemplate(source, rendering.name).render(rendering.context)

    def uncached() -> None:
        use_disk_cache(None)
        StrictTemplate(source, rendering.name).render(rendering.context)

    cached()  # fills the cache
    a, b = paired(timed(cached, 3), timed(uncached, 3), 5 if args.quick else 15)
    use_disk_cache(None)
    yield figure(f"template {rendering.name} ready + render, disk cache vs compile", "A", a, "B", b, "ms")


@group("imagediff")
def image_diff(args: argparse.Namespace, tmp: Path) -> Iterator[str]:
    """pytest_tcab.run.browser.imagediff against the pixelmatch package on the same 1280x720 pairs."""
    import numpy as np
    from PIL import Image
    from PIL import ImageDraw

    from pytest_tcab.run.browser.imagediff import compare

    try:
        from pixelmatch.contrib.PIL import pixelmatch
    except ImportError:
        yield f"{'image diff':<44} pixelmatch is not installed (pip install pixelmatch): no figure"
        return
    width, height = 1280, 720
    y, x = np.mgrid[0:height, 0:width]
    backdrop = np.stack([x * 255 // width, y * 255 // height, np.full_like(x, 96), np.full_like(x, 255)], -1)
    base = Image.fromarray(backdrop.astype(np.uint8), "RGBA")
    draw = ImageDraw.Draw(base)
    draw.ellipse((200, 150, 420, 370), fill=(240, 200, 40, 255))
    draw.text((40, 40), "SCORE 001250", fill=(255, 255, 255, 255))
    moved = base.copy()
    draw = ImageDraw.Draw(moved)
    draw.ellipse((204, 150, 424, 370), fill=(240, 200, 40, 255))  # the ball moved 4 px
    draw.text((40, 40), "SCORE 001260", fill=(255, 255, 255, 255))
    ours = compare(base, moved).differing_pixels
    theirs = pixelmatch(base, moved, includeAA=True)
    a, b = paired(timed(lambda: compare(base, moved)), timed(lambda: pixelmatch(base, moved, includeAA=True)),
                  1 if args.quick else 3)
    yield figure(f"image diff 1280x720 ({ours} vs {theirs} px differ)", "A", a, "B", b, "ms")


@group("wasm")
def wasm(args: argparse.Namespace, tmp: Path) -> Iterator[str]:
    """The fuel-metered, epoch-bounded run against a bare wasmtime call; cached load against compile."""
    import wasmtime

    from pytest_tcab.run.wasm.runner import WasmRunner

    module_file = tmp / "wasteful.wasm"
    module_file.write_bytes(bytes(wasmtime.wat2wasm((REPO / "tests/run/wasm/modules/wasteful.wat").read_text())))
    data = b'{"width": 640, "particles": 64, "ticks": 4000, "seed": 7}'
    bare_engine = wasmtime.Engine()
    bare_module = wasmtime.Module(bare_engine, module_file.read_bytes())

    def bare_run() -> None:
        store = wasmtime.Store(bare_engine)
        exports = wasmtime.Instance(store, bare_module, []).exports(store)
        memory, alloc, entry = exports["memory"], exports["alloc"], exports["simulate"]
        assert isinstance(memory, wasmtime.Memory) and isinstance(alloc, wasmtime.Func)
        assert isinstance(entry, wasmtime.Func)
        ptr = alloc(store, len(data))
        memory.write(store, data, ptr)
        entry(store, ptr, len(data))

    with WasmRunner(tmp / "wasm-cache") as runner:
        loaded = runner.load(module_file, "simulate")
        fuel = runner.run(loaded, "simulate", data, 10**12, 1.0, 64 << 20, 60.0).fuel_consumed

        def metered() -> None:
            runner.run(loaded, "simulate", data, 10**12, 1.0, 64 << 20, 60.0)

        a, b = paired(timed(metered), timed(bare_run), 5 if args.quick else 11)
        yield figure(f"wasm run, fuel-metered vs bare ({fuel:,} fuel)", "A", a, "B", b, "ms")
        wasm_bytes = module_file.read_bytes()
        a, b = paired(timed(lambda: runner.load(module_file, "simulate"), 5),
                      timed(lambda: wasmtime.Module(runner.engine, wasm_bytes), 5), 5 if args.quick else 11)
        yield figure("wasm module load, disk cache vs compile", "A", a, "B", b, "ms")


BROWSER_GAMES = REPO / "tests" / "run" / "browser" / "games"

_TIMING_PLUGIN = '''"""Writes each item's call-phase duration to $TCAB_BENCH_TIMES: what the item itself took."""
import json
import os

_times = []


def pytest_runtest_logreport(report):
    if report.when == "call":
        _times.append([report.nodeid, report.outcome, report.duration])


def pytest_sessionfinish(session):
    with open(os.environ["TCAB_BENCH_TIMES"], "w", encoding="utf-8") as handle:
        json.dump(_times, handle)
'''

_DRIVER = """export default async (api) => {
  await api.call("settle");
  await api.screenshot("shot");
  return { verdicts: { "d__N__": true }, notes: "" };
};
"""

_BARE_DRIVER = """async (url) => {
  const module = await import(url);
  return module.default({ call: (op) => window.__demo[op](), screenshot: async () => null });
}"""


def make_browser_project(folder: Path, items: int) -> Path:
    """The browser tests' demo case and its `good` game, with `items` checks (Space, then a settled
    frame, each against a mockup of its own) and `items` validation drivers (settle, one still)."""
    shutil.copytree(BROWSER_GAMES / "suite", folder / "suite")
    shutil.copytree(BROWSER_GAMES / "good", folder / "good")
    version = folder / "suite/test-cases/end-to-end/easy/demo/v1.0.0"
    manifest = version / "test-case.toml"
    text = manifest.read_text(encoding="utf-8")
    head, _, _ = text.partition("[[review_item]]")
    play = (version / "reference/play.html").read_text(encoding="utf-8")
    for i in range(items):  # each check its own mockup, as each view of a case has
        (version / f"reference/play-{i}.html").write_text(f"{play}<!-- view {i} -->\n", encoding="utf-8")
    checks = "".join(f'\n[[reference]]\nview = "play-{i}"\npath = "reference/play-{i}.html"\n'
                     f'\n[[check]]\nview = "play-{i}"\n'
                     f'actions = [{{ type = "key", key = "Space" }}, {{ type = "call", op = "settle" }}]\n'
                     for i in range(items))
    reviews = "".join(f'\n[[review_item]]\nid = "d{i}"\ntitle = "Driver {i}"\ntext = "Drawn."\nweight = 1\n'
                      f'domain = "play"\nvalidation = {{ script = "validation/d{i}.mjs", '
                      f'outputs = [{{ id = "shot", kind = "image" }}] }}\n' for i in range(items))
    domain = text[text.index("[[domain]]"):]
    manifest.write_text(head + checks + reviews + "\n" + domain, encoding="utf-8")
    (version / "validation").mkdir()
    for i in range(items):
        (version / "validation" / f"d{i}.mjs").write_text(_DRIVER.replace("__N__", str(i)), encoding="utf-8")
    (folder / "tcab_bench_timing.py").write_text(_TIMING_PLUGIN, encoding="utf-8")
    return version


@group("browser")
def browser(args: argparse.Namespace, tmp: Path) -> Iterator[str]:
    """Per-item time of the plugin's check and validate items (the call phase, a warm session:
    browser up, mockups cached, build done) against the same page work on a bare Playwright page
    of one context the bare side keeps open: a new page, load, the same input, a screenshot.
    Both sides alternate in pairs; the figures are medians over every item of every pair."""
    from playwright.sync_api import sync_playwright

    from pytest_tcab.run.browser.discovery import find_chromium
    from pytest_tcab.run.browser.serve import StaticServer
    from pytest_tcab.run.browser.session import LAUNCH_ARGS

    chromium = find_chromium(None)
    if chromium is None:
        yield f"{'browser per-item overhead':<44} not measured: no Chromium"
        return
    items = 4 if args.quick else 8
    repeat = args.repeat or (2 if args.quick else 5)
    folder = tmp / "browser"
    version = make_browser_project(folder, items)
    ini = make_ini(folder)
    env = {**bench_env(), "TCAB_BENCH_TIMES": str(folder / "times.json")}
    env["PYTHONPATH"] = str(folder) + os.pathsep + env["PYTHONPATH"]
    argv = pytest_args(ini, "-p", "tcab_bench_timing", "--tcab-suite=suite", "--tcab-run=good", "--tcab-out=out",
                       "-k", "check or validate")
    run_process(argv, folder, env)  # warm: bytecode, the mockup cache
    samples: dict[str, list[float]] = {"check": [], "validate": [], "bare check": [], "bare driver": []}

    def plugin_side() -> float:
        run_process(argv, folder, env)
        times = json.loads((folder / "times.json").read_text(encoding="utf-8"))
        for nodeid, outcome, duration in times:
            kind = "check" if "::check[play-" in nodeid else "validate" if "::validate[" in nodeid else None
            if kind is not None:
                assert outcome == "passed", f"{nodeid} {outcome}: the benchmark's project must pass"
                samples[kind].append(duration)
        return 0.0

    build = folder / "bare-build"
    build.mkdir()
    shutil.copy(folder / "good/index.html", build / "index.html")
    shutil.copytree(version / "validation", build / "validation")
    with sync_playwright() as playwright, StaticServer(build) as server:
        bare = playwright.chromium.launch(executable_path=str(chromium.path), args=list(LAUNCH_ARGS))
        context = bare.new_context(viewport={"width": 1280, "height": 720}, device_scale_factor=1,
                                   locale="en-US", timezone_id="UTC")
        context.new_page()  # kept open, as the plugin keeps one per context: a context's next page opens 3x faster

        def bare_side() -> float:
            for i in range(items):
                start = time.perf_counter()
                page = context.new_page()
                page.goto(server.url, wait_until="load")
                page.keyboard.press("Space")
                page.evaluate("() => window.__demo.settle()")
                page.screenshot(type="png")
                page.close()
                samples["bare check"].append(time.perf_counter() - start)
                start = time.perf_counter()
                page = context.new_page()
                page.goto(server.url, wait_until="load")
                page.evaluate(_BARE_DRIVER, f"{server.url}validation/d{i}.mjs")
                page.screenshot(type="png")
                page.close()
                samples["bare driver"].append(time.perf_counter() - start)
            return 0.0

        bare_side()  # warm: the bare context's first page
        samples["bare check"].clear()
        samples["bare driver"].clear()
        paired(plugin_side, bare_side, repeat)
        bare.close()
    for kind, bare_kind in (("check", "bare check"), ("validate", "bare driver")):
        a = statistics.median(samples[kind])
        b = statistics.median(samples[bare_kind])
        yield figure(f"browser {kind} item vs bare page ({len(samples[kind])} items)", "A", a, "B", b, "ms")
        yield f"{'browser ' + kind + ' overhead per item':<44} {(a - b) * 1000:.0f} ms (target <= 150 ms)"
    shutil.rmtree(folder)


_CROSSING_PAGE = """<!doctype html><script>
  const state = { tick: 0, x: 100.5, y: 40.25, score: [0, 0], label: "ball" };
  window.__bench = { snapshot: () => ({ ...state }), step: (n = 1) => { state.tick += n; return { ...state }; } };
</script>"""
_CROSSING_SCRIPT = """export default async (api) => {
  const times = [];
  for (let i = 0; i < __N__; i += 1) {
    const start = performance.now();
    await api.snapshot();
    times.push(performance.now() - start);
  }
  return { verdicts: { crossing: true }, notes: JSON.stringify(times) };
};
"""


@group("judge")
def judge(args: argparse.Namespace, tmp: Path) -> Iterator[str]:
    """One `api` crossing (a script's `await api.snapshot()` in the judge runtime: judge -> Python
    -> page -> Python -> judge, timed in the script) against a bare `page.evaluate` of the same
    handle call from Python, on one page of one context; both sides alternate in pairs."""
    from playwright.sync_api import sync_playwright

    from pytest_tcab.run.browser.discovery import find_chromium
    from pytest_tcab.run.browser.driving import ClipRecorder
    from pytest_tcab.run.browser.serve import StaticServer
    from pytest_tcab.run.browser.session import LAUNCH_ARGS
    from pytest_tcab.run.judge.crossings import Crossings
    from pytest_tcab.run.judge.runtime import JudgeRuntime

    chromium = find_chromium(None)
    if chromium is None:
        yield f"{'judge crossing vs bare page.evaluate':<44} not measured: no Chromium"
        return
    calls = 100 if args.quick else 400
    repeat = args.repeat or (3 if args.quick else 7)
    folder = tmp / "judge"
    folder.mkdir()
    (folder / "index.html").write_text(_CROSSING_PAGE, encoding="utf-8")
    script = folder / "crossing.mjs"
    script.write_text(_CROSSING_SCRIPT.replace("__N__", str(calls)), encoding="utf-8")
    spec = {"script": str(script), "name": "crossing.mjs", "roots": [[f"{folder}/", ""]], "handle": "__bench",
            "outputs": [], "verdictIds": ["crossing"], "pass": "validate", "tickHz": None, "clipMs": 0}
    crossed: list[float] = []
    bare_calls: list[float] = []
    runtime = JudgeRuntime()
    with sync_playwright() as playwright, StaticServer(folder) as server:
        browser = playwright.chromium.launch(executable_path=str(chromium.path), args=list(LAUNCH_ARGS))
        page = browser.new_page()
        page.goto(server.url, wait_until="load")
        crossings = Crossings(page, "__bench", time.monotonic() + 3600, folder, "bench", ClipRecorder(page, folder / "x.webm"))

        def judge_side() -> float:
            result = runtime.run(spec, crossings.serve, 600)
            assert result is not None and result.get("verdicts") == {"crossing": True}, result
            crossed.extend(ms / 1000 for ms in json.loads(result["notes"]))
            return 0.0

        def bare_side() -> float:
            for _ in range(calls):
                start = time.perf_counter()
                page.evaluate("([handle, op, args]) => window[handle][op](...args)", ["__bench", "snapshot", []])
                bare_calls.append(time.perf_counter() - start)
            return 0.0

        judge_side()  # warm: Node started, the script's first worker
        crossed.clear()
        paired(judge_side, bare_side, repeat)
        browser.close()
    runtime.close()
    a, b = statistics.median(crossed), statistics.median(bare_calls)
    yield figure(f"judge api crossing vs bare page.evaluate ({len(crossed)} calls)", "A", a, "B", b, "ms")
    yield f"{'judge crossing / bare call':<44} {a / b:.2f}x (target <= 1.5x)"


@group("tournament")
def tournament(args: argparse.Namespace, tmp: Path) -> Iterator[str]:
    """Match ticks per CPU second of benchmarks/bench_tournament.py's tournament (needs cargo)."""
    sys.path.insert(0, str(REPO / "benchmarks"))
    os.environ["PATH"] = "/usr/bin" + os.pathsep + os.environ.get("PATH", "")  # Debian's cargo has the wasm target
    try:
        from bench_tournament import tournament_ticks_per_second

        ticks = tournament_ticks_per_second()
    except (OSError, subprocess.CalledProcessError) as error:
        yield f"{'tournament ticks per CPU second':<44} not measured: {error}"
        return
    yield f"{'tournament ticks per CPU second':<44} {ticks:,.0f} ticks/s (8 controllers, round-robin, 3 rounds)"


@group("sweep")
def sweep(args: argparse.Namespace, tmp: Path) -> Iterator[str]:
    """N copies of the example Carom run (pong v2.0.0 #base) graded in one session against a loop
    of N sessions of one run each: CPU (the process and every child: builds, Chromium, xdist
    workers) and wall; the one session again with `--tcab-media=none`, and under `-n 2 --dist
    loadgroup` against serial. One pair per figure: each side grades N builds."""
    copies = args.sweep_runs or (8 if args.quick else 40)
    folder = tmp / "sweep"
    shutil.copytree(EXAMPLE, folder / "suite", ignore=shutil.ignore_patterns(".tcab-cache", "node_modules"))
    runs = folder / "runs"
    for i in range(copies):
        shutil.copytree(EXAMPLE / "runs" / "carom-base", runs / f"carom-{i:03}")
    ini = make_ini(folder)
    env = bench_env()

    def session(out: str, *extra: str) -> ProcessCost:
        shutil.rmtree(folder / out, ignore_errors=True)
        return run_process(pytest_args(ini, "-p", "no:cacheprovider", "--tcab-suite=suite", f"--tcab-out={out}",
                                       *extra), folder, env)

    session("warm", f"--tcab-run={runs / 'carom-000'}")  # bytecode, mockup renders, stripped drivers
    one = session("one", f"--tcab-run={runs}")
    none = session("none", f"--tcab-run={runs}", "--tcab-media=none")
    loop = [session(f"loop-{i}", f"--tcab-run={runs / f'carom-{i:03}'}") for i in range(copies)]
    loop_cpu, loop_wall = sum(cost.cpu for cost in loop), sum(cost.wall for cost in loop)
    yield figure(f"sweep of {copies} runs, one session vs {copies} cpu", "A", one.cpu, "B", loop_cpu, "s")
    yield figure(f"sweep of {copies} runs, one session vs {copies} wall", "A", one.wall, "B", loop_wall, "s")
    yield figure(f"sweep of {copies}, --tcab-media=none vs {copies} cpu", "A", none.cpu, "B", loop_cpu, "s")
    yield f"{'sweep targets':<44} one session <= 0.75x the loop's CPU, with --tcab-media=none <= 0.35x"
    two = session("two", f"--tcab-run={runs}", "-n", "2", "--dist", "loadgroup")
    yield figure(f"sweep of {copies} runs, -n 2 vs serial cpu", "A", two.cpu, "B", one.cpu, "s")
    yield figure(f"sweep of {copies} runs, -n 2 vs serial wall", "A", two.wall, "B", one.wall, "s")
    shutil.rmtree(folder)


# -- the command ------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="smaller catalogs and fewer repeats")
    parser.add_argument("--copies", type=int, nargs="+", help="catalog sizes of the author group (default 200 2000)")
    parser.add_argument("--repeat", type=int, help="pairs per author figure (default 3, 1 at 2,000 copies)")
    parser.add_argument("--sweep-runs", type=int, help="copies of the Carom run in the sweep group (default 40, 8 quick)")
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
