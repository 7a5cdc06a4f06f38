"""The sweep page at 200 runs: its weight without media, its render time, and how soon Chromium
can use it.

    PATH=/usr/bin:$PATH python benchmarks/bench_sweep_page.py              # grades 4 example runs first
    python benchmarks/bench_sweep_page.py --graded .tcab/results/sweep     # reuses a graded sweep

The runs are copies of the example sweep's: a few of its runs are graded once with
`--tcab-media=none` (or an earlier sweep's folder is given), and their results are copied,
renamed and spread over 4 harnesses and 5 models until there are `--runs` (200) of them; the
sweep document is built and index.html written as a session writes them (`sweep_row`,
`sweep_document`, `write_index`). Printed: the page's size (the brief's bound: under 2 MB),
the median time of `write_index` (it runs after every run of a sweep), that of `sweep_document`
as a live sweep rebuilds it (one run more each time, the last `--repeat` * 4 runs), and in Chromium, from
disk, the time until the page's script has wired everything up (`interactive`: the brief's
bound is 2 s), the load event, and opening one run to its items.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from pytest_tcab.run.report.index import write_index
from scripts.example_sweep import write_runs
from pytest_tcab.run.report.sweep import sweep_row
from pytest_tcab.run.report.sweep_files import sweep_document

SUITE = REPO / "example-suite"
SUBSET = ("pong-plain-loop-atlas-1", "e2e-plain-loop-atlas-1", "e2e-planner-birch-1", "bounce-plain-loop-atlas-1",
          "bounce-planner-birch-1")
HARNESSES = ("plain-loop", "planner", "relay", "solo")
MODELS = ("atlas-2026-10", "birch-2026-11", "cedar-2026-11", "delta-2026-12", "ember-2026-12")


def graded_runs(folder: Path | None, tmp: Path) -> list[dict[str, Any]]:
    """The runs of results.json of a graded sweep (graded here when no folder is given)."""
    if folder is None:
        folder = tmp / "graded"
        runs = write_runs(tmp / "runs", list(SUBSET))
        subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", f"--tcab-suite={SUITE}",
                        *(f"--tcab-run={run}" for run in runs), "--tcab-media=none",
                        f"--tcab-out={folder}", "-q"], cwd=REPO, check=False, capture_output=True,
                       env={**os.environ, "PATH": f"/usr/bin{os.pathsep}{os.environ.get('PATH', '')}"})
    data = json.loads((folder / "results.json").read_text(encoding="utf-8"))
    if not data["runs"]:
        raise SystemExit(f"{folder}/results.json holds no runs")
    return list(data["runs"])


def copies(runs: list[dict[str, Any]], count: int) -> list[dict[str, Any]]:
    rows = []
    for index in range(count):
        run = runs[index % len(runs)]
        name = f"{run['run']}-copy{index:03d}"
        copy = {**run, "run": name, "harness": HARNESSES[index % len(HARNESSES)],
                "model": MODELS[(index // len(HARNESSES)) % len(MODELS)], "labels": {"attempt": str(index % 3)},
                "media": "none"}
        rows.append(sweep_row(copy, f"{name}/report.html"))
    return rows


def browser_times(index: Path, repeat: int) -> tuple[float, float, float]:
    """Medians (s) of: interactive (the page's script done), the load event, a run opened."""
    from playwright.sync_api import sync_playwright

    from pytest_tcab.run.browser.discovery import find_chromium

    chromium = find_chromium(None)
    if chromium is None:
        raise SystemExit("no Chromium found (scripts/bootstrap installs Debian's)")
    ready, loaded, opened = [], [], []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(chromium.path), args=["--no-sandbox"])
        for _ in range(repeat):
            page = browser.new_page(viewport={"width": 1300, "height": 900})
            page.route("**/*", lambda route: route.continue_() if route.request.url.startswith("file:") else route.abort())
            page.goto(index.as_uri(), wait_until="load")
            page.wait_for_selector("html[data-ready]")
            ready.append(float(page.evaluate("Number(document.documentElement.dataset.readyMs)")) / 1000)
            loaded.append(float(page.evaluate("performance.timing.loadEventEnd - performance.timing.navigationStart"))
                          / 1000)
            opened.append(float(page.evaluate("""() => {
                const start = performance.now();
                document.querySelector('#runs button.open').click();
                document.querySelector('#runs tr.details').getBoundingClientRect();
                return performance.now() - start; }""")) / 1000)
            page.close()
        browser.close()
    return statistics.median(ready), statistics.median(loaded), statistics.median(opened)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graded", type=Path, help="a graded sweep's --tcab-out to copy runs from")
    parser.add_argument("--runs", type=int, default=200, help="runs in the sweep (default 200)")
    parser.add_argument("--repeat", type=int, default=5, help="page loads and renders timed (default 5)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="tcab-bench-page-") as name:
        tmp = Path(name)
        runs = graded_runs(args.graded, tmp)
        rows = copies(runs, args.runs)
        out = tmp / "sweep"
        out.mkdir()
        documents, renders = [], []
        for _ in range(args.repeat):
            start = time.perf_counter()
            document = sweep_document(rows, tool={}, media="none")
            documents.append(time.perf_counter() - start)
            start = time.perf_counter()
            index = write_index(document, out)
            renders.append(time.perf_counter() - start)
        live = []
        for count in range(len(rows) - args.repeat * 4, len(rows) + 1):
            start = time.perf_counter()
            sweep_document(rows[:count], tool={}, media="none")
            live.append(time.perf_counter() - start)
        (out / "sweep.json").write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
        size = index.stat().st_size
        ready, loaded, opened = browser_times(index, args.repeat)
        modes = ", ".join(sorted({str(run.get("media")) for run in runs}))
        print(f"sweep of {args.runs} runs (copies of {len(runs)} graded example runs, graded with --tcab-media={modes})")
        print(f"index.html size                 {size / 2**20:8.2f} MiB   (bound: under 2 MB)")
        print(f"sweep.json size                 {(out / 'sweep.json').stat().st_size / 2**20:8.2f} MiB")
        print(f"sweep_document (the leaderboard) {statistics.median(documents) * 1000:7.0f} ms   (median of {args.repeat})")
        print(f"sweep_document, one run more     {statistics.median(live[1:]) * 1000:7.0f} ms   (median of "
              f"{len(live) - 1}: a live sweep's rewrite)")
        print(f"write_index (the page)          {statistics.median(renders) * 1000:8.0f} ms   (median of {args.repeat})")
        print(f"Chromium: interactive           {ready * 1000:8.0f} ms   (bound: within 2 s)")
        print(f"Chromium: load event            {loaded * 1000:8.0f} ms")
        print(f"Chromium: a run opened in place {opened * 1000:8.1f} ms")


if __name__ == "__main__":
    main()
