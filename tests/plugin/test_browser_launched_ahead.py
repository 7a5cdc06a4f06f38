"""The session's browser launched while the first build its items wait for runs, end to end in
real processes: a build that cannot end until the browser is up passes; its failure is told by
its build item, a failed launch by the browser items, each as it is without the overlap; an
override of the launch arguments still decides how Chromium runs; a session with no browser item
launches none; and a build that burns the processor while Chromium launches changes no verdict."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import cast

import pytest
from test_option_concurrency import ARGS
from test_option_concurrency import SLEEPER
from test_option_concurrency import _stamps  # noqa: F401  (autouse: each build and item phase stamped)
from test_option_concurrency import grade
from test_option_concurrency import interrupt
from test_option_concurrency import named
from test_option_concurrency import sandboxed
from test_option_concurrency import start_session
from test_option_concurrency import write_runs

from pytest_tcab.run.browser.discovery import NO_BROWSER_REASON
from pytest_tcab.run.browser.discovery import find_chromium

pytestmark = [pytest.mark.skipif(find_chromium(None) is None, reason=NO_BROWSER_REASON), pytest.mark.browser]

MARKS = '''
import json
import os
import threading
import time

import pytest_tcab.run.browser.session as session
import pytest_tcab.run.sandbox.steps as steps

_lock = threading.Lock()
_workdirs = []
_marks = set()
_prepare = steps.prepare_workdir
_init = session.BrowserSession.__init__


def mark(name):
    with _lock:
        _marks.add(name)
        for folder in _workdirs:
            (folder / name).touch()


def prepare(source, parent):
    workdir = _prepare(source, parent)
    with _lock:
        _workdirs.append(workdir.path)
        for name in _marks:
            (workdir.path / name).touch()
    return workdir


def init(self, chromium, launch_args=None, *args, **kwargs):
    deadline = time.monotonic() + 60
    while not _workdirs and time.monotonic() < deadline:  # a launch beside a build finds its folder
        time.sleep(0.05)
    beside = bool(_workdirs)
    started = time.time()
    mark("launching")
    try:
        _init(self, chromium, launch_args, *args, **kwargs)
    finally:
        with open(os.environ["TCAB_STAMPS"], "a") as log:
            log.write(json.dumps({"browser": launch_args, "beside": beside, "start": started,
                                  "stop": time.time()}) + "\\n")
    mark("browser-up")


steps.prepare_workdir = prepare
session.BrowserSession.__init__ = init
'''
"""Puts `launching` into every build folder (now and to come) as the session's browser begins to
launch, `browser-up` once it is up, and stamps each launch: its arguments, its start and end, and
whether a build had begun by then (it waits up to 60 s for one to)."""


def waits_for(mark: str, then: str = "") -> str:
    """A run's hostile.sh that goes on only once `mark` is in its build folder, then runs `then`; a
    build that waited 100 s in vain loses its index.html, so its build fails."""
    return (f"for i in $(seq 1000); do [ -f {mark} ] && break; sleep 0.1; done\n"
            f"[ -f {mark} ] || rm index.html\n{then}")


@pytest.fixture
def marks(pytester: pytest.Pytester, scratch: Path) -> tuple[str, ...]:
    """The marking plugin; the options that load it."""
    pytester.makepyfile(tcab_marks=MARKS)
    return ("-p", "tcab_marks", "--tcab-concurrency=1")  # one run at a time: no build begun across runs


def launches(stamps: list[dict[str, object]]) -> list[dict[str, object]]:
    return [stamp for stamp in stamps if "browser" in stamp]


def beside_build(stamps: list[dict[str, object]], run: str) -> list[bool]:
    """For each launch of the session's browser, whether it ran beside run `run`'s build: begun
    once the build had, up before it ended."""
    build = next(stamp for stamp in stamps if stamp.get("build") == run)
    return [launch["beside"] is True and float(str(launch["stop"])) < float(str(build["stop"]))
            for launch in launches(stamps)]


def chromium_args(launch: dict[str, object]) -> list[str]:
    """The Chromium flags a stamped launch was given (`tcab_launch_args`'s `args`)."""
    return list(cast("dict[str, list[str]]", launch["browser"])["args"])


def item_outcomes(outcomes: dict[str, dict[str, str]], run: str) -> dict[str, str]:
    """Run `run`'s items' outcomes by their name (`build`, `check[...]`)."""
    return {nodeid.rsplit("::", 1)[-1]: outcome for nodeid, outcome in outcomes[run].items()}


@pytest.mark.parametrize("selection", [(), ("-k", "check")], ids=["build-item-first", "browser-item-first"])
def test_the_browser_is_launched_while_the_first_build_runs(
        pytester: pytest.Pytester, marks: tuple[str, ...], selection: tuple[str, ...]) -> None:
    runs = write_runs(pytester.path, {"a-waits": waits_for("browser-up")})
    outcomes, stamps, result = grade(pytester, list(named(runs, "a-waits")), 1, *marks, *selection)
    graded = item_outcomes(outcomes, "a-waits")
    assert graded.pop("build", "passed") == "passed", "it built: the browser came up while it waited"
    assert graded.pop("proof[shot]", "skipped") == "skipped"  # the build writes none
    assert graded and set(graded.values()) == {"passed"}, graded
    assert beside_build(stamps, "a-waits") == [True], "one launch, begun after the build and up before its end"
    assert result.ret == 0


BROKEN = waits_for("browser-up", "rm index.html\n")
"""A build that fails (its `cp index.html dist/`) once the browser is up."""


def test_a_failed_build_is_reported_by_its_build_item_alone(pytester: pytest.Pytester,
                                                           marks: tuple[str, ...]) -> None:
    runs = write_runs(pytester.path, {"a-broken": BROKEN})
    outcomes, stamps, result = grade(pytester, list(named(runs, "a-broken")), 1, *marks)
    graded = item_outcomes(outcomes, "a-broken")
    assert graded.pop("build") == "failed"
    assert graded.pop("proof[shot]") == "skipped"
    assert set(graded.values()) == {"failed"}, "each check: not run"
    assert len(launches(stamps)) == 1, "launched while the build ran, which waited for it"
    result.stdout.fnmatch_lines(["FAILED *::build - *", "FAILED *check*not run: build failed*"])
    assert "Traceback" not in result.stdout.str()


def test_a_failed_launch_is_reported_by_the_browser_items_alone(pytester: pytest.Pytester,
                                                               marks: tuple[str, ...]) -> None:
    runs = write_runs(pytester.path, {"a-waits": waits_for("launching")})
    outcomes, stamps, result = grade(pytester, list(named(runs, "a-waits")), 1, *marks, "--tcab-chromium=/bin/false")
    graded = item_outcomes(outcomes, "a-waits")
    assert graded.pop("build") == "passed", "the launch failed while it built: not its failure"
    assert graded.pop("proof[shot]") == "skipped"
    assert set(graded.values()) == {"failed"}, "not graded, each with the launch's message"
    assert len(launches(stamps)) == 1, "launched once, while the build ran: each item tells it"
    launch_failed = "not graded: the browser could not start: could not launch Chromium at /bin/false *"
    result.stdout.fnmatch_lines(["*tcab: check?title?*", launch_failed, "*tcab: check?play?*", launch_failed])
    assert "Traceback" not in result.stdout.str()


def test_a_stop_at_the_failed_build_closes_the_browser_launched_beside_it(
        pytester: pytest.Pytester, marks: tuple[str, ...], scratch: Path) -> None:
    runs = write_runs(pytester.path, {"a-broken": BROKEN})
    _, stamps, result = grade(pytester, list(named(runs, "a-broken")), 1, *marks, "-x")
    assert len(launches(stamps)) == 1, "launched while the build ran, then never used"
    result.stdout.fnmatch_lines(["*stopping after 1 failures*"])
    assert not sandboxed(str(scratch)), "no Chromium (its profile is under the scratch folder) is left"
    assert not list(scratch.glob("tcab-playwright-*")) and not list(scratch.glob("tcab-run-*"))


def test_an_interrupted_session_leaves_neither_the_build_nor_the_browser_behind(
        pytester: pytest.Pytester, marks: tuple[str, ...], scratch: Path) -> None:
    runs = write_runs(pytester.path, {"a-sleeper": waits_for("browser-up", SLEEPER)})
    marker = SLEEPER.split()[1]
    argv = [sys.executable, "-m", "pytest", *ARGS, *marks, "--tcab-out=out", f"--tcab-run={named(runs, 'a-sleeper')[0]}"]
    session = start_session(argv, pytester.path, until=marker)
    assert sandboxed(marker), "the build sleeps once the browser is up"
    output = interrupt(session)
    assert session.returncode == 2, output
    assert not sandboxed(marker), "Ctrl-C ended the build"
    assert not sandboxed(str(scratch)), "and closed the browser launched beside it"
    assert not list(scratch.glob("tcab-playwright-*")) and not list(scratch.glob("tcab-run-*"))


OVERRIDE = '''
import pytest


@pytest.fixture(scope="session")
def tcab_launch_args(tcab_launch_args):
    return {**tcab_launch_args, "args": [*tcab_launch_args["args"], "--user-agent=tcab-override"]}
'''


def test_an_override_of_the_launch_arguments_still_decides_how_chromium_runs(
        pytester: pytest.Pytester, marks: tuple[str, ...]) -> None:
    pytester.makeconftest(OVERRIDE)
    runs = write_runs(pytester.path, {})
    outcomes, stamps, result = grade(pytester, list(named(runs, "a-good")), 1, *marks)
    assert set(item_outcomes(outcomes, "a-good").values()) == {"passed", "skipped"}  # the proof: none written
    ahead, used = launches(stamps)
    assert "--user-agent=tcab-override" not in chromium_args(ahead)
    assert "--user-agent=tcab-override" in chromium_args(used), \
        "launched ahead with the plugin's arguments, then again with the override's: that one grades"
    assert result.ret == 0


def test_a_session_selecting_only_the_build_launches_no_browser(pytester: pytest.Pytester,
                                                                 marks: tuple[str, ...]) -> None:
    runs = write_runs(pytester.path, {})
    outcomes, stamps, result = grade(pytester, list(named(runs, "a-good")), 1, *marks, "-k", "build")
    assert list(item_outcomes(outcomes, "a-good").values()) == ["passed"]
    assert launches(stamps) == []
    assert result.ret == 0


BURNER = '''
# Burns every core from the start of the browser's launch until it is up, then 2 s more (at the
# build's own priority: the first build is not lowered), then builds a blank page.
for i in 1 2 3 4; do ( while [ ! -f browser-up ]; do :; done; end=$((SECONDS + 2)); \
while [ $SECONDS -lt $end ]; do :; done ) & done
wait
cat > index.html <<'EOF'
<!doctype html>
<style>html, body { margin: 0; background: #ffffff; }</style>
<script>window.__demo = { settle: () => null };</script>
EOF
'''


def test_a_build_burning_the_processor_while_chromium_launches_changes_no_verdict(
        pytester: pytest.Pytester, marks: tuple[str, ...]) -> None:
    """The abuse: a run whose checks would fail makes the session's browser fail to launch, so its
    items, and every other run's, say "not graded" instead. They fail as they do without it."""
    runs = write_runs(pytester.path, {"a-burner": waits_for("launching", BURNER)})
    outcomes, stamps, result = grade(pytester, list(named(runs, "a-burner", "d-good")), 1, *marks)
    burner = item_outcomes(outcomes, "a-burner")
    assert burner.pop("build") == "passed"
    assert burner.pop("proof[shot]") == "skipped"
    assert set(burner.values()) == {"failed"}, "its blank page fails its checks: graded, not 'not graded'"
    assert set(item_outcomes(outcomes, "d-good").values()) == {"passed", "skipped"}
    assert beside_build(stamps, "a-burner") == [True]
    assert result.ret == 1
