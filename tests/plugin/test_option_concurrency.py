"""`--tcab-concurrency`, end to end in real processes: a sweep graded with the next run's build begun
early gives every item the outcome it has one run at a time; a hostile next build (forking,
filling its disk, burning the processor) does not change the run graded beside it; `-x` and
Ctrl-C end a build begun early, leaving no sandboxed process behind."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

# pytester's in-process runs drop the modules first imported inside them, and numpy, Pillow and
# Playwright cannot be imported afresh in one process: they are loaded here and kept.
import numpy  # noqa: F401
import PIL.Image  # noqa: F401
import playwright.sync_api  # noqa: F401
import pytest

from pytest_tcab.run.browser.discovery import NO_BROWSER_REASON
from pytest_tcab.run.browser.discovery import find_chromium

GAMES = Path(__file__).resolve().parents[1] / "run" / "browser" / "games"
SUITE = Path("suite")
DEMO = SUITE / "test-cases/end-to-end/easy/demo/v1.0.0/test-case.toml"
ARGS = ("-p", "no:cacheprovider", "-p", "no:faulthandler", "-p", "tcab_stamps", f"--tcab-suite={SUITE}",
        "--tcab-build-timeout=120", "--tcab-build-disk=96MiB")
BUILD = "if [ -f hostile.sh ]; then bash hostile.sh; fi; mkdir -p dist && cp index.html dist/"
"""The demo case's build: a run's own `hostile.sh` first, where it has one (what a produced build may do)."""
STAMPS = '''
import json
import os
import time

import pytest_tcab.run.context as context

_build_static = context.build_static


def stamped(source, *args, **kwargs):
    started = time.time()
    try:
        return _build_static(source, *args, **kwargs)
    finally:
        with open(os.environ["TCAB_STAMPS"], "a") as log:
            log.write(json.dumps({"build": source.name, "start": started, "stop": time.time()}) + "\\n")


context.build_static = stamped


def pytest_runtest_logreport(report):
    with open(os.environ["TCAB_STAMPS"], "a") as log:
        log.write(json.dumps({"item": report.nodeid, "when": report.when, "start": report.start,
                              "stop": report.stop}) + "\\n")
'''
"""Stamps each build (by run folder, with its start and end) and each item's phases."""


def write_runs(root: Path, hostile: dict[str, str]) -> list[Path]:
    """The games suite with the demo case built by `BUILD`, and runs `a-good`, `b-blank` (its checks
    fail), `c-broken` (its build fails), `d-good` and one per `hostile` (name: its hostile.sh)."""
    shutil.copytree(GAMES / "suite", root / SUITE)
    manifest = root / DEMO
    manifest.write_text(manifest.read_text().replace('build = "mkdir -p dist && cp index.html dist/"',
                                                     f'build = "{BUILD}"'))
    runs = root / "runs"
    for name, tree in (("a-good", "good"), ("b-blank", "blank"), ("c-broken", "good"), ("d-good", "good"),
                       *((name, "good") for name in hostile)):
        shutil.copytree(GAMES / tree, runs / name)
        (runs / name / ".tcab").mkdir(exist_ok=True)
        (runs / name / ".tcab/run.toml").write_text('case = "demo"\n')
    (runs / "c-broken/index.html").unlink()  # `cp index.html dist/` fails
    for name, script in hostile.items():
        (runs / name / "hostile.sh").write_text(script)
    return sorted(runs.iterdir())


def named(runs: list[Path], *names: str) -> tuple[Path, ...]:
    """The runs of `write_runs` called `names`, in that order."""
    return tuple(next(run for run in runs if run.name == name) for name in names)


def grade(pytester: pytest.Pytester, runs: list[Path], concurrency: int, *extra: str,
          ) -> tuple[dict[str, dict[str, str]], list[dict[str, object]], pytest.RunResult]:
    """Each run's items' outcomes by node id (from its own results.json), the stamps, the session."""
    stamps = pytester.path / f"stamps-{concurrency}.jsonl"
    os.environ["TCAB_STAMPS"] = str(stamps)
    out = f"out-{concurrency}"
    result = pytester.runpytest_subprocess(*ARGS, f"--tcab-concurrency={concurrency}", f"--tcab-out={out}",
                                           *extra, *(f"--tcab-run={run}" for run in runs), timeout=600)
    outcomes = {}
    for run in runs:
        path = pytester.path / out / (run.name if len(runs) > 1 else "") / "results.json"  # one run: at the top
        if path.exists():
            data = json.loads(path.read_text())
            outcomes[run.name] = {item["nodeid"]: item["outcome"] for item in data["runs"][0]["items"]}
    found = [json.loads(line) for line in stamps.read_text().splitlines()] if stamps.exists() else []
    return outcomes, found, result


def began_during(stamps: list[dict[str, object]], graded: str, built: str) -> bool:
    """Whether run `built`'s build began before the last item of run `graded` ended."""
    build = next(stamp for stamp in stamps if stamp.get("build") == built)
    return float(build["start"]) < max(float(stamp["stop"]) for stamp in stamps
                                       if f"{graded}/.tcab/" in str(stamp.get("item", "")))


def overlapped(stamps: list[dict[str, object]], graded: str, built: str) -> bool:
    """Whether run `built`'s build ran while an item of run `graded` ran (after its build item)."""
    build = next(stamp for stamp in stamps if stamp.get("build") == built)
    items = [stamp for stamp in stamps if f"{graded}/.tcab/" in str(stamp.get("item", "")) and stamp["when"] == "call"
             and not str(stamp["item"]).endswith("::build")]
    return any(float(build["start"]) < float(item["stop"]) and float(item["start"]) < float(build["stop"])
               for item in items)


@pytest.fixture(autouse=True)
def _stamps(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    pytester.makepyfile(tcab_stamps=STAMPS)  # a plugin (-p): a conftest's hooks would not see the run items
    monkeypatch.setenv("TCAB_STAMPS", str(pytester.path / "stamps.jsonl"))


def start_session(argv: list[str], cwd: Path, until: str) -> subprocess.Popen[bytes]:
    """A session in a process of its own, with Python's fault handler on (see `interrupt`), once a
    process whose command line holds `until` runs (or it ended, or five minutes passed)."""
    session = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               env={**os.environ, "PYTHONFAULTHANDLER": "1"})
    deadline = time.monotonic() + 300
    while not sandboxed(until) and time.monotonic() < deadline and session.poll() is None:
        time.sleep(0.2)
    return session


def interrupt(session: subprocess.Popen[bytes]) -> str:
    """Ctrl-C the session and wait for it to end; its output. One still running two minutes later
    fails the test with every thread's stack (SIGABRT, printed by the fault handler), and is ended:
    a hang is told where it hangs, and leaves no process for the next test to trip on."""
    session.send_signal(signal.SIGINT)
    try:
        return session.communicate(timeout=120)[0].decode()
    except subprocess.TimeoutExpired:
        session.send_signal(signal.SIGABRT)
        try:
            output = session.communicate(timeout=60)[0].decode()
        except subprocess.TimeoutExpired:
            session.kill()
            output = session.communicate()[0].decode()
        pytest.fail(f"the session did not end within 120 s of Ctrl-C; its output and threads:\n{output[-12000:]}")


def sandboxed(marker: str) -> list[int]:
    """The processes whose command line holds `marker` (a unique word this test's builds run with)."""
    found = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                if marker in (proc / "cmdline").read_bytes().decode("utf-8", "replace"):
                    found.append(int(proc.name))
            except OSError:
                continue
    return [pid for pid in found if pid != os.getpid()]


@pytest.mark.skipif(find_chromium(None) is None, reason=NO_BROWSER_REASON)
@pytest.mark.browser
@pytest.mark.usefixtures("scratch")
def test_outcomes_are_the_same_item_for_item_with_builds_begun_early(pytester: pytest.Pytester) -> None:
    runs = write_runs(pytester.path, {})
    serial, one_at_a_time, alone = grade(pytester, runs, 1)
    early, stamps, beside = grade(pytester, runs, 2)
    assert serial == early, "every item of every run has the outcome it has one run at a time"
    assert set(serial) == {run.name for run in runs}
    assert serial["c-broken"][next(i for i in serial["c-broken"] if i.endswith("::build"))] == "failed", \
        "a build begun early that fails is reported by its own run's build item"
    assert began_during(stamps, "a-good", "b-blank"), "b-blank's build began while a-good's items ran"
    assert began_during(stamps, "b-blank", "c-broken")
    assert not began_during(one_at_a_time, "a-good", "b-blank"), "--tcab-concurrency=1: one run at a time"
    assert alone.parseoutcomes() == beside.parseoutcomes()
    assert alone.ret == beside.ret == 1


HOSTILE = f'''
# Forks sleepers that leave their session, fills its disk, burns both cores, then builds as usual.
for i in 1 2 3 4 5 6 7 8; do ( setsid sleep 4242{os.getpid()} & ); done
dd if=/dev/zero of=fill bs=1M status=none
for i in 1 2 3 4; do ( end=$((SECONDS + 25)); while [ $SECONDS -lt $end ]; do :; done ) & done
wait
'''


@pytest.mark.skipif(find_chromium(None) is None, reason=NO_BROWSER_REASON)
@pytest.mark.browser
def test_a_hostile_next_build_does_not_change_the_run_graded_beside_it(
        pytester: pytest.Pytester, scratch: Path) -> None:
    runs = write_runs(pytester.path, {"b-hostile": HOSTILE})
    honest = [runs[0]]  # a-good
    alone, _, _ = grade(pytester, honest, 1)
    beside, stamps, result = grade(pytester, [runs[0], named(runs, "b-hostile")[0]], 2)
    assert beside["a-good"] == alone["a-good"], "the honest run graded beside the hostile build, as graded alone"
    assert overlapped(stamps, "a-good", "b-hostile"), "the hostile build ran while a-good's checks ran"
    build = next(outcome for nodeid, outcome in beside["b-hostile"].items() if nodeid.endswith("::build"))
    assert build == "failed", "it filled its own disk: its own run fails"
    assert not sandboxed(f"4242{os.getpid()}"), "the sleepers it forked died with its step"
    assert not list(scratch.glob("tcab-run-*")), "both runs' disks are gone"
    assert result.ret == 1


SLEEPER = f"sleep 5151{os.getpid()}\n"
"""A build that would run for days: only ending it lets its session finish."""


@pytest.mark.skipif(find_chromium(None) is None, reason=NO_BROWSER_REASON)
@pytest.mark.browser
def test_a_stop_at_the_first_failure_ends_the_build_begun_early(
        pytester: pytest.Pytester, scratch: Path) -> None:
    runs = write_runs(pytester.path, {"c-sleeper": SLEEPER})
    blank, sleeper = named(runs, "b-blank", "c-sleeper")
    started = time.monotonic()
    _, stamps, result = grade(pytester, [blank, sleeper], 2, "-x")
    assert time.monotonic() - started < 300, "the sleeping build was ended, not waited for"
    assert any(stamp.get("build") == "c-sleeper" for stamp in stamps), "it had begun beside b-blank's checks"
    assert not sandboxed(f"5151{os.getpid()}")
    assert not list(scratch.glob("tcab-run-*"))
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*stopping after 1 failures*"])


@pytest.mark.skipif(find_chromium(None) is None, reason=NO_BROWSER_REASON)
@pytest.mark.browser
def test_an_interrupted_session_leaves_no_build_begun_early_behind(
        pytester: pytest.Pytester, scratch: Path) -> None:
    runs = write_runs(pytester.path, {"b-sleeper": SLEEPER})
    good, sleeper = named(runs, "a-good", "b-sleeper")
    marker = f"5151{os.getpid()}"
    argv = [sys.executable, "-m", "pytest", *ARGS, "--tcab-concurrency=2", "--tcab-out=out",
            f"--tcab-run={good}", f"--tcab-run={sleeper}", f"--tcab-run={runs[-1]}"]
    session = start_session(argv, pytester.path, until=marker)
    assert sandboxed(marker), "the sleeper's build began beside a-good's checks"
    output = interrupt(session)
    assert session.returncode == 2, output
    assert not sandboxed(marker), "Ctrl-C ended the build begun early"
    assert not list(scratch.glob("tcab-run-*"))
