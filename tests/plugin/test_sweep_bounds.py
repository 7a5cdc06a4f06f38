"""What one run of a sweep can do to the others, and to the grader: nothing. Its conftest.py and its
pytest.ini never reach the session; a build step or a page that allocates without end fails its own
run, naming the cap, and the next run is graded as usual; a page that crashes its own renderer is
the run's failure, never "not graded"; only what breaks the grading machine is."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

# pytester's in-process runs drop the modules first imported inside them, and numpy, Pillow and
# Playwright cannot be imported afresh in one process: they are loaded here and kept.
import numpy  # noqa: F401
import PIL.Image  # noqa: F401
import playwright.sync_api  # noqa: F401
import pytest
import wasmtime
from sweep_suite import ARGS
from sweep_suite import write_sweep_suite

from pytest_tcab.run.browser.discovery import NO_BROWSER_REASON
from pytest_tcab.run.browser.discovery import find_chromium
from pytest_tcab.run.sandbox import sandbox
from pytest_tcab.run.sandbox.cgroup import find_parent

needs_browser = pytest.mark.skipif(find_chromium(None) is None, reason=NO_BROWSER_REASON)
HOSTILE_CONFTEST = 'open({marker!r}, "w").write("ran")\nraise SystemExit("a run took the grader")\n'


@pytest.fixture
def runs(pytester: pytest.Pytester) -> Path:
    return write_sweep_suite(pytester.path)


def sweep_rows(path: Path) -> dict[str, dict[str, Any]]:
    return {row["run"]: row for row in json.loads((path / "sweep.json").read_text())["runs"]}


def test_a_runs_conftest_never_runs_in_the_grader(pytester: pytest.Pytester, runs: Path) -> None:
    marker = pytester.path / "took-the-grader"
    for folder in (runs / "perf", runs / "perf/.tcab", runs / "hero", runs / "hero/tests"):
        folder.mkdir(exist_ok=True)
        (folder / "conftest.py").write_text(HOSTILE_CONFTEST.format(marker=str(marker)))
    (runs / "hero/test_it.py").write_text(HOSTILE_CONFTEST.format(marker=str(marker)))
    by_option = pytester.runpytest(*ARGS, f"--tcab-run={runs / 'perf'}", f"--tcab-run={runs / 'hero'}", "--tcab-out=a")
    by_option.assert_outcomes(passed=4)
    by_path = pytester.runpytest(*ARGS, "suite/runs/perf", "suite/runs/hero/.tcab/run.toml", "--tcab-out=b")
    by_path.assert_outcomes(passed=4)
    folder_of_runs = pytester.runpytest(*ARGS, "suite/runs", "-k", "perf or hero", "--tcab-out=c")
    folder_of_runs.assert_outcomes(passed=4, deselected=11)
    assert not marker.exists()


def test_a_runs_own_pytest_ini_is_refused(pytester: pytest.Pytester, runs: Path) -> None:
    (runs / "perf/pytest.ini").write_text("[pytest]\naddopts = --tcab-no-sandbox\n")
    result = pytester.runpytest("-p", "no:cacheprovider", "--tcab-suite=suite", "suite/runs/perf")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([("*pytest took its configuration from */suite/runs/perf/pytest.ini, inside the run "
                                 "*: a produced run must not configure the session that grades it*")])


@pytest.mark.parametrize("by", ["cgroup", "RLIMIT_DATA"])
def test_a_build_that_allocates_without_end_fails_its_run_naming_the_cap(
        pytester: pytest.Pytester, runs: Path, monkeypatch: pytest.MonkeyPatch, by: str) -> None:
    if by == "cgroup" and find_parent() is None:
        pytest.skip("this host lets the grader make no memory cgroup (cgroup v2 memory.max or v1 memory)")
    if by == "RLIMIT_DATA":
        monkeypatch.setattr(sandbox, "find_parent", lambda controller="memory": None)  # as on a host that gives no cgroup
    manifest = pytester.path / "suite/versions/v1.0.0/test-cases/game.toml"
    manifest.write_text(manifest.read_text().replace('build = "mkdir -p dist && cp index.html dist/"',
                                                     'build = "python3 grow.py"'))
    (runs / "game/grow.py").write_text("grown = []\nwhile True:\n    grown.append(bytearray(2**24))\n")
    result = pytester.runpytest(*ARGS, f"--tcab-run={runs / 'game'}", f"--tcab-run={runs / 'hero'}",
                                "--tcab-build-memory=256MiB", "--tcab-out=out")
    scope = ("each process's data segment, RLIMIT_DATA" if by == "RLIMIT_DATA"
             else "the step's whole process tree, a cgroup's memory.*")
    result.stdout.fnmatch_lines([(f"build failed: `python3 grow.py` exited *; past its memory cap of 256 MiB ({scope}, "
                                  "--tcab-build-memory)")])
    rows = sweep_rows(pytester.path / "out")
    assert rows["game"]["status"] == "graded" and rows["game"]["items"]["build"] == "failed"
    assert rows["hero"]["items"] == {"asset[hero.png]": "passed"}  # the next run, graded as usual


def test_the_caps_reach_each_step(pytester: pytest.Pytester, runs: Path) -> None:
    manifest = pytester.path / "suite/versions/v1.0.0/test-cases/game.toml"
    manifest.write_text(manifest.read_text().replace(
        'build = "mkdir -p dist && cp index.html dist/"',
        'build = "mkdir -p dist && cp index.html dist/ && ulimit -v && ulimit -t"'))  # -v: never RLIMIT_AS
    pytester.runpytest(*ARGS, f"--tcab-run={runs / 'game'}", "--tcab-build-memory=512MiB", "--tcab-build-timeout=77",
                       "--tcab-build-processes=300", "--tcab-out=out")
    items = json.loads((pytester.path / "out/results.json").read_text())["runs"][0]["items"]
    build = next(item for item in items if item["kind"] == "build")
    assert build["outcome"] == "passed"
    step = build["steps"][-1]
    assert step["output"].split() == ["unlimited", "77"]  # ulimit -t counts seconds
    assert (step["memory_cap"], step["cpu_cap_s"], step["process_cap"]) == (512 * 2**20, 77, 300)
    assert step["process_cap_by"] in ("pids.max" if find_parent("pids") is not None else ("RLIMIT_NPROC", "none"))
    assert step["memory_cap_by"] == ("RLIMIT_DATA" if find_parent() is None else find_parent().limit_file)  # type: ignore[union-attr]


@needs_browser
@pytest.mark.browser
def test_a_page_that_allocates_without_end_fails_its_own_run_only(pytester: pytest.Pytester, runs: Path) -> None:
    shutil.copytree(runs / "good", runs / "hog")
    page = (runs / "hog/index.html").read_text()
    (runs / "hog/index.html").write_text(page.replace(
        "<script>", "<script>\n  const hoard = []; for (;;) hoard.push(new Array(1e6).fill(Math.random()));\n", 1))
    result = pytester.runpytest(*ARGS, f"--tcab-run={runs / 'hog'}", f"--tcab-run={runs / 'good'}",
                                "--tcab-page-memory=32MiB", "--tcab-out=out", "-p", "no:randomly")
    result.stdout.fnmatch_lines([("*the page crashed (its renderer died at http://127.0.0.1:*): a page past its "
                                 "JavaScript heap cap (32 MiB, --tcab-page-memory)*")])
    rows = sweep_rows(pytester.path / "out")
    hog, good = rows["hog"], rows["good"]
    assert hog["status"] == "graded", "a page that crashes itself fails; it is never 'not graded'"
    assert hog["items"]["check[title]"] == "failed" and hog["items"]["check[play]"] == "failed"
    assert good["status"] == "graded"
    assert good["items"]["check[title]"] == "passed" and good["items"]["check[play]"] == "passed"


WASM_MODULE = bytes(wasmtime.wat2wasm('(module (memory (export "m") 1) (func (export "f") (result i32) i32.const 7))'))
WASM_SCRIPT = f"""<script>
  // Each wasm memory reserves about 10 GiB of address space: refused under an address-space cap.
  const reserved = new WebAssembly.Memory({{ initial: 1 }});
  const ready = WebAssembly.instantiate(Uint8Array.of({", ".join(map(str, WASM_MODULE))})).then(({{ instance }}) => {{
    if (instance.exports.f() !== 7 || reserved.buffer.byteLength !== 65536) throw new Error("wasm answered wrong");
  }});
"""


@needs_browser
@pytest.mark.browser
def test_a_page_that_instantiates_wasm_passes_under_the_default_caps(pytester: pytest.Pytester, runs: Path) -> None:
    shutil.copytree(runs / "good", runs / "wasm")
    page = (runs / "wasm/index.html").read_text()
    page = page.replace("<script>", WASM_SCRIPT, 1).replace("settle: () => new Promise(",
                                                            "settle: () => ready.then(() => new Promise(", 1)
    (runs / "wasm/index.html").write_text(page.replace("done())) };", "done()))) };", 1))
    result = pytester.runpytest(*ARGS, f"--tcab-run={runs / 'wasm'}", "--tcab-out=out", "-p", "no:randomly")
    result.assert_outcomes(passed=3, skipped=1)  # the build, check[title], check[play]; the proof shot is left


@needs_browser
@pytest.mark.browser
def test_a_run_not_graded_is_resumed_and_the_sweep_holds_both(pytester: pytest.Pytester, runs: Path) -> None:
    runs_args = (f"--tcab-run={runs / 'good'}", f"--tcab-run={runs / 'hero'}")
    first = pytester.runpytest(*ARGS, *runs_args, "--tcab-chromium=/bin/false", "--tcab-out=first")
    first.stdout.fnmatch_lines(["*not graded: the browser could not start: could not launch Chromium at /bin/false*"])
    rows = sweep_rows(pytester.path / "first")
    assert rows["good"]["status"] == "not graded" and rows["hero"]["status"] == "graded"
    board = json.loads((pytester.path / "first/sweep.json").read_text())["leaderboard"]
    assert next(cell for cell in board if cell["case"] == "demo")["not_graded"] == 1
    again = pytester.runpytest(*ARGS, *runs_args, "--tcab-resume=first", "--tcab-out=second", "-v")
    assert "asset[hero.png]" not in again.stdout.str()  # graded before: not again
    again.stdout.fnmatch_lines(["*good/.tcab/run.toml::check[[]title] PASSED*"])
    rows = sweep_rows(pytester.path / "second")
    assert {name: row["status"] for name, row in rows.items()} == {"good": "graded", "hero": "graded"}
    assert rows["hero"]["resumed"] is True and (pytester.path / "second/hero/report.html").is_file()


@needs_browser
@pytest.mark.browser
def test_index_html_shows_the_leaderboard_and_links_each_report(pytester: pytest.Pytester, runs: Path) -> None:
    (runs / "perf/.tcab/run.toml").write_text('case = "perf"\nmodel = "model-a"\nharness = "harness-x"\n')
    (runs / "hero/.tcab/run.toml").write_text('case = "hero"\nmodel = "model-b"\nharness = "harness-x"\n')
    pytester.runpytest(*ARGS, f"--tcab-run={runs / 'perf'}", f"--tcab-run={runs / 'hero'}", "--tcab-out=out")
    from playwright.sync_api import sync_playwright

    chromium = find_chromium(None)
    assert chromium is not None
    index = pytester.path / "out/index.html"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(chromium.path), args=["--no-sandbox"])
        page = browser.new_page()
        page.goto(index.as_uri())
        board = page.locator("#leaderboard tbody tr")
        assert board.count() == 2
        models = lambda: [board.nth(i).locator("td").nth(1).inner_text() for i in range(2)]
        assert models() == ["model-a", "model-b"]  # by harness, model and case
        heading = page.locator("#leaderboard th", has_text="model")
        heading.click()
        heading.click()  # sortable: by model, ascending, then descending
        assert models() == ["model-b", "model-a"]
        assert page.locator("#leaderboard td.num").nth(0).inner_text() in ("1.000", "0.000")
        links = page.locator("#runs tbody a")
        assert sorted(links.nth(i).get_attribute("href") or "" for i in range(links.count())) == [
            "hero/report.html", "perf/report.html"]
        page.locator("#runs a", has_text="perf").click()
        assert page.url.endswith("/out/perf/report.html") and "perf" in page.title()
        browser.close()


def test_runs_a_stopped_session_never_reached_are_not_graded(pytester: pytest.Pytester, runs: Path) -> None:
    (runs / "perf/prebuilt/echo.wasm").write_bytes(b"\0asm\1\0\0\0")  # a module that exports nothing: it fails
    result = pytester.runpytest(*ARGS, f"--tcab-run={runs / 'perf'}", f"--tcab-run={runs / 'hero'}", "-x",
                                "--tcab-out=out")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    rows = sweep_rows(pytester.path / "out")
    assert rows["perf"]["items"]["build"] == "failed"
    assert rows["perf"]["status"] == rows["hero"]["status"] == "not graded"  # neither was graded whole
    assert rows["hero"]["error"].startswith("not graded: the session stopped early (")
    assert rows["hero"]["error"].endswith("before 1 of its items ran")
    result.stdout.fnmatch_lines(["*hero: not graded: the session stopped early*"])


def test_a_path_inside_a_run_is_that_run(pytester: pytest.Pytester, runs: Path) -> None:
    marker = pytester.path / "took-the-grader"
    (runs / "hero/assets/conftest.py").write_text(HOSTILE_CONFTEST.format(marker=str(marker)))
    (runs / "hero/assets/test_it.py").write_text(HOSTILE_CONFTEST.format(marker=str(marker)))
    result = pytester.runpytest(*ARGS, "suite/runs/hero/assets/test_it.py", "--tcab-out=out")
    assert result.ret == pytest.ExitCode.USAGE_ERROR  # not an item of the run: pytest finds nothing to run
    result.stderr.fnmatch_lines(["*no match in any of [[]<RunDirectory hero>]*"])
    assert not marker.exists()
