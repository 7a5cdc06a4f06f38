"""The browser item: its base class and test function, the session's browser fixtures, and the debug options.

A plugin of its own, registered by `pytest_tcab.plugin` in the sessions that drive pages. It
imports the browser session only when a fixture starts it, so registering it costs nothing.

The session's browser is launched while the first build its items wait for runs (`launch_ahead`):
the build in a thread of its own (`RunContext.start_build`), Chromium on this one, where
Playwright's sync API must stay. The `tcab_browser` fixture takes that browser when it would have
launched it the same way, and launches its own otherwise, so its override points still decide.
"""

from __future__ import annotations

import functools
import re
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any
from typing import cast

import pytest

from pytest_tcab.errors import TcabError
from pytest_tcab.failures import is_plain
from pytest_tcab.failures import item_failure
from pytest_tcab.nodeids import match_saved_form
from pytest_tcab.outcomes import NotGraded
from pytest_tcab.outcomes import mark_not_graded
from pytest_tcab.outcomes import skip_at_item
from pytest_tcab.run.browser.discovery import NO_BROWSER_REASON
from pytest_tcab.run.browser.discovery import ChromiumLocation
from pytest_tcab.run.browser.discovery import find_chromium

if TYPE_CHECKING:
    from pytest_tcab.run.browser.session import BrowserSession
    from pytest_tcab.run.browser.session import ItemScope
    from pytest_tcab.run.browser.session import Tracing
    from pytest_tcab.run.context import RunContext

NOT_CONFINED = (
    "--tcab-no-sandbox: Chromium runs in the host's network and sees the host's files (the suite, "
    "the results folder, your home); pages are kept to the loopback server by Playwright's routes "
    "and Chromium's flags only (docs/trust.md)"
)
"""Said once per session that runs pages unconfined."""

class PageCrashed(TcabError):
    """A page of the item crashed its renderer: the run's own failure, never "not graded"."""

    def __init__(self, urls: list[str], config: pytest.Config) -> None:
        cap = int(config.getoption("tcab_page_memory")) // 2**20
        super().__init__(f"the page crashed (its renderer died at {urls[0]}): a page past its JavaScript heap "
                         f"cap ({cap} MiB, --tcab-page-memory), or one that brings its renderer down, fails here")



@dataclass(frozen=True)
class DebugOptions:
    """`--tcab-tracing`, `--tcab-headed`, `--tcab-slowmo`, each defaulting to pytest-playwright's
    `--tracing`, `--headed`, `--slowmo` when that plugin is installed and they are given."""

    tracing: Tracing
    headed: bool
    slowmo: float


PLAYWRIGHT_IGNORED: dict[str, tuple[str, Any]] = {
    "browser": ("--browser", []),
    "browser_channel": ("--browser-channel", None),
    "device": ("--device", None),
    "video": ("--video", "off"),
    "screenshot": ("--screenshot", "off"),
    "full_page_screenshot": ("--full-page-screenshot", False),
    "output": ("--output", "test-results"),
    "playwright_debug": ("--playwright-debug", None),
}
"""pytest-playwright's options tcab items cannot honour: dest -> (flag, its default)."""

_debug_key = pytest.StashKey["DebugOptions"]()


def _has_pytest_playwright(config: pytest.Config) -> bool:
    """pytest-playwright (or a plugin speaking its options) registered its command line."""
    return hasattr(config.option, "browser_channel") and hasattr(config.option, "tracing")


def debug_options(config: pytest.Config) -> DebugOptions:
    """The session's debugging options: ours first, then pytest-playwright's, then off."""
    if _debug_key not in config.stash:
        theirs = _has_pytest_playwright(config)
        tracing = config.getoption("tcab_tracing", None) or (theirs and config.getoption("tracing")) or "off"
        headed = bool(config.getoption("tcab_headed", False) or (theirs and config.getoption("headed")))
        slowmo = config.getoption("tcab_slowmo", None)
        if slowmo is None:
            slowmo = float(theirs and config.getoption("slowmo") or 0)
        config.stash[_debug_key] = DebugOptions(cast("Tracing", tracing), headed, slowmo)
    return config.stash[_debug_key]


def ignored_playwright_options(config: pytest.Config) -> list[str]:
    """pytest-playwright's options given a value tcab items do not honour (`--browser chromium` is ours)."""
    if not _has_pytest_playwright(config):
        return []
    given = []
    for dest, (flag, default) in PLAYWRIGHT_IGNORED.items():
        value: Any = getattr(config.option, dest, default)
        if dest == "browser" and value and set(value) <= {"chromium"}:
            continue
        if value != default and value is not None:
            given.append(flag)
    return given


@pytest.fixture(scope="session")
def tcab_launch_args(request: pytest.FixtureRequest) -> dict[str, Any]:
    """Override point: keyword arguments for ``chromium.launch`` (the executable is always ours)."""
    return default_launch_args(request.config)


def default_launch_args(config: pytest.Config) -> dict[str, Any]:
    """`tcab_launch_args` as the plugin gives it: what a browser launched ahead of the fixture uses."""
    from pytest_tcab.run.browser.session import LAUNCH_ARGS

    debug = debug_options(config)
    return {"args": [*LAUNCH_ARGS, heap_cap_flag(config)], "headless": not debug.headed, "slow_mo": debug.slowmo}


def heap_cap_flag(config: pytest.Config) -> str:
    """Chromium's flag that caps each page's JavaScript heap (`--tcab-page-memory`): a page that
    allocates without end crashes its own renderer instead of taking the grading machine."""
    return f"--js-flags=--max-old-space-size={int(config.getoption('tcab_page_memory')) // 2**20}"


@pytest.fixture(scope="session")
def tcab_context_args() -> dict[str, Any]:
    """Override point: keyword arguments for every item's ``new_context``.

    A fixed locale and time zone keep screenshots the same on every host; viewport, scale and
    the loopback guard are set by the item and cannot be overridden here.
    """
    return {"locale": "en-US", "timezone_id": "UTC"}


@pytest.fixture(scope="session")
def tcab_browser(
    request: pytest.FixtureRequest,
    tcab_launch_args: dict[str, Any],
    tcab_context_args: dict[str, Any],
) -> Iterator[BrowserSession]:
    """The session's browser, or a skip with NO_BROWSER_REASON when this host has none."""
    launch = Launch.of(request.config, tcab_launch_args)
    if launch is None:
        skip_at_item(NO_BROWSER_REASON)
    ignored = ignored_playwright_options(request.config)
    if ignored:
        warnings.warn(pytest.PytestWarning(
            f"pytest-playwright's {', '.join(ignored)} do not apply to tcab items: they run in pytest-tcab's own "
            "Chromium (--tcab-chromium, --tcab-viewport) and keep their own media (a screenshot on failure, "
            "--tcab-tracing); --tracing, --headed and --slowmo are honoured (docs/debugging.md)"),
            stacklevel=1)
    if not launch.confine:
        warnings.warn(pytest.PytestWarning(NOT_CONFINED), stacklevel=1)
    session = _launched_ahead(request.config, launch)
    if session is None:
        session = launch.start(tcab_context_args)
    else:
        session.context_args = dict(tcab_context_args)  # launched without: it has made no context yet
    request.config.stash[_browser_key] = session
    try:
        yield session
    finally:
        del request.config.stash[_browser_key]
        session.close()


_browser_key = pytest.StashKey["BrowserSession"]()


@dataclass(frozen=True)
class Launch:
    """How the session's browser is launched: a browser launched ahead is the fixture's only when
    it was launched the way the fixture would launch it."""

    chromium: ChromiumLocation
    args: dict[str, Any]
    """`tcab_launch_args`."""
    confine: bool
    hidden: tuple[Path, ...]

    @classmethod
    def of(cls, config: pytest.Config, args: dict[str, Any]) -> Launch | None:
        """The launch with `args` on this host; None when it has no Chromium (a named one that is
        not there raises)."""
        from pytest_tcab.run.sandbox.sandbox import hidden_places

        location = find_chromium(config.getoption("tcab_chromium", None))
        if location is None:
            return None
        return cls(location, dict(args), not config.getoption("tcab_no_sandbox", False), hidden_places(config))

    def start(self, context_args: dict[str, Any] | None) -> BrowserSession:
        from pytest_tcab.run.browser.session import BrowserSession

        return BrowserSession(self.chromium, self.args, context_args, confine=self.confine, hidden=self.hidden)


@dataclass(frozen=True)
class LaunchedAhead:
    """The session's browser launched ahead of the fixture, or what its launch raised: the
    fixture raises it, so the browser items report it as they report a launch of their own."""

    launch: Launch
    launched: BrowserSession | Exception


_ahead_key = pytest.StashKey["LaunchedAhead | None"]()
"""Absent until a browser is launched ahead or the fixture runs; None once the fixture ran (it
launches its own from then on: none is launched ahead again)."""
_browser_runs_key = pytest.StashKey["set[RunContext]"]()


def _launched_ahead(config: pytest.Config, launch: Launch) -> BrowserSession | None:
    """The browser launched ahead, when it was launched as `launch` says (else it is closed: an
    override of `tcab_launch_args` launches otherwise); what its launch raised is raised here."""
    ahead = config.stash.get(_ahead_key, None)
    config.stash[_ahead_key] = None
    if ahead is None:
        return None
    if ahead.launch != launch:
        if not isinstance(ahead.launched, Exception):
            ahead.launched.close()
        return None
    if isinstance(ahead.launched, Exception):
        raise ahead.launched
    return ahead.launched


def launch_ahead(config: pytest.Config, launch: Launch) -> None:
    """Launch the session's browser now, on this thread, while a build runs in its own; kept,
    launched or not, for the fixture to take (an unused one is closed with the session)."""
    try:
        launched: BrowserSession | Exception = launch.start(None)
    except Exception as error:  # the browser items report it, never the item launching ahead
        launched = error
    config.stash[_ahead_key] = LaunchedAhead(launch, launched)
    config.add_cleanup(functools.partial(_close_ahead, config))


def _close_ahead(config: pytest.Config) -> None:
    """The session's end (`-x`, Ctrl-C, no browser item reached): a browser launched ahead that the
    fixture never took is closed, so no Chromium outlives the session."""
    ahead = config.stash.get(_ahead_key, None)
    config.stash[_ahead_key] = None
    if ahead is not None and not isinstance(ahead.launched, Exception):
        ahead.launched.close()


def _uses_browser(item: pytest.Item) -> bool:
    return "tcab_browser" in getattr(item, "fixturenames", ())


def _begin_build(item: pytest.Item) -> Launch | None:
    """When `item` is the first of a browser run (one with a selected item driven in the session's
    browser) to need its build, and the browser is not up yet: begin the build in its thread, and
    say how the browser is launched. None, and nothing begun, where the build is done or will not
    begin early (`start_build`: a shared build, no sandbox) or the host has no Chromium."""
    from pytest_tcab.run.across import NOT_BUILT_KINDS

    run: RunContext | None = getattr(item, "run", None)
    config = item.config
    if run is None or _ahead_key in config.stash or run not in config.stash.get(_browser_runs_key, set()):
        return None
    if getattr(item, "kind", None) in NOT_BUILT_KINDS or run.finished_build is not None:
        return None
    try:
        launch = Launch.of(config, default_launch_args(config))
    except TcabError:  # a named Chromium that is not there: the fixture says so, at its items
        return None
    if launch is None or not run.start_build(background=False):
        return None
    return launch


def pytest_collection_finish(session: pytest.Session) -> None:
    """The runs with a selected item driven in the session's browser: only their builds bring it up early."""
    runs = (getattr(item, "run", None) for item in session.items if _uses_browser(item))
    session.config.stash[_browser_runs_key] = {run for run in runs if run is not None}


def pytest_runtest_setup(item: pytest.Item) -> None:
    """A browser item first to need its run's build: the build begins, and the item's own setup
    launches the browser meanwhile. Not `tryfirst`: the skip marks are read first (`skipping`),
    and the item's fixtures after (pytest's runner, registered before this plugin)."""
    if _uses_browser(item):
        _begin_build(item)


def pytest_runtest_call(item: pytest.Item) -> None:
    """Any other item first to need its run's build (its `build` item): the build begins and the
    browser is launched meanwhile, before the item waits for the build (pytest's runner calls it next)."""
    if not _uses_browser(item):
        launch = _begin_build(item)
        if launch is not None:
            launch_ahead(item.config, launch)


@pytest.hookimpl(tryfirst=True)
def pytest_tcab_run_finished(config: pytest.Config, run: RunContext) -> None:
    """A finished run's contexts are closed before its server is (`run.context` lets go last)."""
    session = config.stash.get(_browser_key, None)
    if session is not None and run.origin is not None:
        session.release(run.origin)


class BrowserFunction(pytest.Function):
    """An item driven in the session browser: `use_browser` gets it through `browser_test`.

    It is a `pytest.Function` so the browser arrives as the `tcab_browser` fixture, through
    public API. A host with no Chromium skips with the one shared reason; `--tcab-strict`
    turns that into a failure, reported in the call phase like every other strict failure.
    """

    _no_browser = False
    _unavailable: str | None = None
    """Why the session's browser cannot start (no confinement, a failed launch): the item fails
    with it in its call phase, as a message, never as a setup traceback."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        match_saved_form(self)

    def use_browser(self, browser: BrowserSession) -> None:
        raise NotImplementedError

    def fresh_attempt(self) -> None:
        """Graded again (`run.attempts`): whether the browser could start is asked anew."""
        self._no_browser = False
        self._unavailable = None

    def output_folder(self) -> Path | None:
        """Where this item's trace and failure screenshot go: `<run out>/browser/<item name>/`."""
        run = getattr(self, "run", None)
        if run is None:
            return None
        safe = re.sub(r"[^A-Za-z0-9_.@#-]+", "_", self.name).strip("_") or "item"
        return Path(run.out_dir) / "browser" / safe

    def keep_debugging(self, kept: dict[str, Any]) -> None:
        """Put what the item kept for debugging (trace, failure screenshot) into its report."""
        record = getattr(self, "record", None)
        if record is not None:
            record(**kept)
        else:
            self.user_properties.extend((f"tcab.{name}", value) for name, value in kept.items())

    def setup(self) -> None:
        try:
            super().setup()
        except pytest.skip.Exception as skip:
            if not (self.config.getoption("tcab_strict") and str(skip.msg) == NO_BROWSER_REASON):
                if str(skip.msg) == NO_BROWSER_REASON:
                    mark_not_graded(self, NO_BROWSER_REASON)
                raise
            self._no_browser = True
        except TcabError as error:
            self._unavailable = str(error)

    def runtest(self) -> None:
        if self._no_browser:
            pytest.fail(f"{NO_BROWSER_REASON} (--tcab-strict)", pytrace=False)
        if self._unavailable is not None:
            run = getattr(self, "run", None)
            if run is not None:
                run.require_build()  # a run item whose build failed is "not run" first
            raise NotGraded(f"the browser could not start: {self._unavailable}")
        super().runtest()

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        """Our failures as their plain message, never a traceback."""
        if is_plain(excinfo.value):
            return item_failure(self, excinfo.value)
        return pytest.Function.repr_failure(self, excinfo)


def browser_test(request: pytest.FixtureRequest, tcab_browser: BrowserSession) -> None:
    """The test function of every browser item (a plain function: fixtures come from its signature)."""
    from pytest_tcab.run.browser.session import Debugging

    item = request.node
    assert isinstance(item, BrowserFunction)
    debugging = Debugging(tracing=debug_options(item.config).tracing)
    scope: ItemScope | None = None
    if not tcab_browser.browser.is_connected():
        raise NotGraded("the session's browser is gone: it closed during an earlier item")
    try:
        with tcab_browser.item(item.nodeid, item.output_folder, debugging) as scope:
            try:
                item.use_browser(tcab_browser)
            except Exception:
                if scope.crashed:
                    raise PageCrashed(scope.crashed, item.config) from None
                raise
            if scope.crashed:  # whatever the item made of it, a crashed page decides nothing
                raise PageCrashed(scope.crashed, item.config)
    finally:  # the scope has closed: its trace is written, whatever the outcome
        if scope is not None and scope.kept:
            item.keep_debugging(scope.kept)
