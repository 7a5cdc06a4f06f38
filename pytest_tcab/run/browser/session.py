"""The session's one Chromium and the contexts it lends to items, each cleaned between them (its pool)."""

from __future__ import annotations

import contextlib
import os
import shlex
import sys
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Callable
from collections.abc import Iterator
from collections.abc import Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any
from typing import Literal

import pytest

from pytest_tcab.run.browser.discovery import NO_FFMPEG_REASON
from pytest_tcab.run.browser.discovery import BrowserError
from pytest_tcab.run.browser.discovery import ChromiumLocation
from pytest_tcab.run.browser.discovery import ffmpeg_for_playwright
from pytest_tcab.run.browser.guard import CONFINING_ARGS
from pytest_tcab.run.browser.guard import FALLBACK_SCRIPT
from pytest_tcab.run.browser.guard import any_url
from pytest_tcab.run.browser.guard import loopback_only
from pytest_tcab.run.browser.guard import loopback_only_socket
from pytest_tcab.run.browser.guard import origin_of

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext
    from playwright.sync_api import CDPSession
    from playwright.sync_api import Page

LAUNCH_ARGS: tuple[str, ...] = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    *CONFINING_ARGS,
)
"""Flags that let Debian's Chromium run headless with no GPU (WebGL falls back to SwiftShader),
in containers with a small /dev/shm, and without phoning home; then the confining flags."""

KEPT_DEFAULT_GUARDS = ("--disable-popup-blocking",)
"""Playwright's default flags the plugin drops: with them, a page could open windows without a
user's gesture, each opening more (a page that opens a hundred windows, each its own copy, takes
the browser's whole CPU and the grader with it). Chromium's own popup blocker then refuses them."""

METRICS_PLACEHOLDERS = ("BrowserMetrics", "BrowserMetrics-spare.pma")
"""Where Chromium puts its metrics files in a profile: its metrics folder (the file it maps its
histograms into, headed) and the 4 MiB spare file it writes 90 s after it starts. Chromium has no
switch for either (its persistent histograms are set up before it reads features), so the launcher
puts a file and a folder in their places: both writes fail, Chromium keeps its histograms in memory,
and a session's profile no longer grows with its time."""

DEFAULT_VIEWPORT = (1280, 720)

Tracing = Literal["off", "on", "retain-on-failure"]

POOL_SIZE = 4
"""Contexts kept between items (each holds a renderer); past it the least recently used is closed."""

FAILURE_SHOT_TIMEOUT_MS = 2_000.0
"""How long the screenshot of a failed item's page may take: it is evidence, not the test."""

NO_DISPLAY = (
    "--tcab-headed needs a display, and neither DISPLAY nor WAYLAND_DISPLAY is set: run pytest "
    "under a desktop session or `xvfb-run`, or drop --tcab-headed"
)

Setup = Callable[["BrowserContext"], None]
"""What a lent context gets once, when it is made (init scripts, bindings)."""


@dataclass(frozen=True)
class Debugging:
    """What a browser item leaves behind for whoever debugs it (`--tcab-tracing`, the failure still)."""

    tracing: Tracing = "off"
    screenshot_on_failure: bool = True


@dataclass
class _Lent:
    """A context lent to one item after another. Between items its pages are closed, its cookies
    dropped and the storage of every origin its pages reached (seen by the loopback guard, which
    every request of the context passes) cleared through `janitor`, the CDP session of a blank
    page of its own: the next item's page starts as a fresh context's would."""

    context: BrowserContext
    origins: set[str]
    janitor_page: Page
    janitor: CDPSession
    traced: bool = False
    """Whether its tracing has started; then each item records one chunk of it."""
    chunk: bool = False
    """Whether a trace chunk is open now."""


@dataclass
class ItemScope:
    """One browser item's pages and the contexts lent to it, and what it kept for debugging."""

    title: str
    folder: Callable[[], Path | None]
    """The item's output folder (made when something is kept), or None when it has none."""
    debugging: Debugging
    pages: list[Page] = field(default_factory=list)
    lent: list[_Lent] = field(default_factory=list)
    kept: dict[str, Any] = field(default_factory=dict)
    """`trace` (and `traces` when there are several), `failure_screenshot`: paths, for results.json."""
    crashed: list[str] = field(default_factory=list)
    """The URLs of the item's pages whose renderer died: the item fails with "the page crashed"."""


@contextmanager
def _environ(name: str, value: str | None) -> Iterator[None]:
    """Set one environment variable for a moment: the driver copies the environment when spawned."""
    previous = os.environ.get(name)
    if value is not None:
        os.environ[name] = value
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = previous


_running: set[int] = set()
"""Threads with a live BrowserSession: a second sync Playwright there fails with a misleading
"inside the asyncio loop" error, so BrowserSession refuses first and says why."""


def close_if_popup(page: Page) -> None:
    """A graded page gets the one window the plugin opened for it: a window it opens itself (on
    a click, past the popup blocker) is closed as it appears, so nothing it shows there counts."""
    from playwright.sync_api import Error

    if page.opener() is not None:
        with contextlib.suppress(Error):  # closed already, with its context
            page.close()


def launcher(folder: Path, executable: Path) -> Path:
    """A script in `folder` that fills the profile Playwright names (`--user-data-dir=`) with the
    :data:`METRICS_PLACEHOLDERS`, then runs `executable` (Chromium, or its confined launcher)."""
    metrics, spare = (shlex.quote(name) for name in METRICS_PLACEHOLDERS)
    script = folder / "chromium-launcher"
    script.write_text('#!/bin/sh\nfor arg; do case "$arg" in --user-data-dir=*) profile=${arg#--user-data-dir=}; '
                      f': > "$profile"/{metrics}; mkdir -p "$profile"/{spare};; esac; done\n'
                      f'exec {shlex.quote(str(executable))} "$@"\n', encoding="utf-8")
    script.chmod(0o700)
    return script


class BrowserSession:
    """One Playwright driver and one Chromium for the whole session.

    Items get their pages through `item()` and `page()`: a fresh page each time, in a context
    kept for its (origin, viewport, setup) and cleaned between items (see `_Lent`): a run's
    build and each server of the plugin's own pages (mockups, a particle player, a replay) are
    origins of their own, so no page ever shares a context with another origin's, and a page
    reaches its own origin only. `new_context` makes a context of the caller's own.
    Uses the sync API, so it must never be created or used inside a running asyncio loop.
    """

    def __init__(
        self,
        chromium: ChromiumLocation,
        launch_args: Mapping[str, Any] | None = None,
        context_args: Mapping[str, Any] | None = None,
        confine: bool = True,
        hidden: tuple[Path, ...] = (),
    ) -> None:
        from playwright.sync_api import Error
        from playwright.sync_api import sync_playwright

        from pytest_tcab.run.browser import netns
        from pytest_tcab.run.browser import serve

        if threading.get_ident() in _running:
            raise BrowserError(
                "a BrowserSession is already running in this thread; Playwright's sync API "
                "allows one at a time per thread, so close it or share it"
            )
        self.chromium = chromium
        self.confined = confine
        """Whether Chromium runs in a network namespace of its own (else flags and routes guard it)."""
        self._scratch = tempfile.TemporaryDirectory(prefix="tcab-playwright-")
        profiles = self.profiles = Path(self._scratch.name) / "profiles"
        """Where Playwright makes Chromium's profile (its TMPDIR): what of the scratch disk the browser holds."""
        profiles.mkdir()
        try:
            self._network = netns.ConfinedNetwork(netns.probe(), chromium.path, profiles, hidden) if confine else None
        except BaseException:
            self._scratch.cleanup()
            raise
        self._stop_serving: Callable[[], None] | None = None
        self.context_args = dict(context_args or {})
        """What every context is made with besides viewport and guard (it changes how pages render)."""
        browsers = ffmpeg_for_playwright(Path(self._scratch.name))
        self.video_unavailable: str | None = None if browsers is not None else NO_FFMPEG_REASON
        """Why recording contexts cannot be made on this host, or None when they can."""
        try:
            # The driver makes each browser's profile and artifact folders in its TMPDIR: the one
            # writable place a confined Chromium is shown.
            with (_environ("PLAYWRIGHT_BROWSERS_PATH", None if browsers is None else str(browsers)),
                  _environ("TMPDIR", str(profiles))):
                self._playwright = sync_playwright().start()
        except BaseException:
            self._scratch.cleanup()
            self._close_network()
            raise
        options = {"args": list(LAUNCH_ARGS), "headless": True, **(launch_args or {})}
        options["ignore_default_args"] = [*options.get("ignore_default_args", ()), *KEPT_DEFAULT_GUARDS]
        if not options["headless"] and sys.platform.startswith("linux") and not (
                os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
            self._playwright.stop()
            self._scratch.cleanup()
            self._close_network()
            raise BrowserError(NO_DISPLAY)
        executable = chromium.path if self._network is None else self._network.executable
        if os.name == "posix":  # a shell script: elsewhere Chromium starts as it is
            executable = launcher(Path(self._scratch.name), executable)
        try:
            self.browser = self._playwright.chromium.launch(**options, executable_path=str(executable))
            if self._network is not None:
                self._network.connect()
        except (Error, netns.ConfinementUnavailable) as error:
            self._playwright.stop()
            self._scratch.cleanup()
            self._close_network()
            said = error.message if isinstance(error, Error) else str(error)
            raise BrowserError(
                f"could not launch Chromium at {chromium.path} (found via {chromium.source}): "
                f"{said.splitlines()[0]}"
            ) from None
        if self._network is not None:
            network = self._network
            self._stop_serving = serve.on_start(lambda server: server.serve_also(network.listener(server.port)))
        self._thread = threading.get_ident()
        _running.add(self._thread)
        self._closed = False
        self._pool: OrderedDict[tuple[str | None, tuple[int, int], Setup | None], _Lent] = OrderedDict()
        self._scope: ItemScope | None = None

    def new_context(
        self,
        viewport: tuple[int, int] = DEFAULT_VIEWPORT,
        record_video_dir: Path | None = None,
    ) -> BrowserContext:
        """A context at `viewport` logical pixels that can reach nothing but the loopback server.

        With `record_video_dir`, every page records a full-size clip there (``.webm``), saved
        when the page closes. The caller closes it.
        """
        return self._make_context(viewport, None, record_video_dir)[0]

    def _make_context(self, viewport: tuple[int, int], origin: str | None, record_video_dir: Path | None = None,
                      ) -> tuple[BrowserContext, set[str]]:
        """A guarded context (its pages reach `origin` only, any loopback origin when None), and
        the set its guard fills with every origin a page of it requests."""
        width, height = viewport
        size = {"width": width, "height": height}
        options: dict[str, Any] = {
            **self.context_args,
            "viewport": size,
            "device_scale_factor": 1,
            # A service worker's fetches bypass context routes; blocking them keeps the guard whole.
            "service_workers": "block",
        }
        if record_video_dir is not None:
            if self.video_unavailable is not None:
                raise BrowserError(self.video_unavailable)
            options["record_video_dir"] = str(record_video_dir)
            options["record_video_size"] = size
        context = self.browser.new_context(**options)
        if not self.confined:
            context.add_init_script(FALLBACK_SCRIPT)
        # Fresh closures per context: Playwright caches its wrapper on the handler object, and a
        # wrapper made by an earlier (since reloaded) Playwright would hand over raw objects.
        origins: set[str] = set()
        allowed = None if origin is None else origin_of(origin)
        context.route("**/*", lambda route: loopback_only(route, origins, allowed))
        context.on("page", close_if_popup)
        context.route_web_socket(lambda url: any_url(url), lambda socket: loopback_only_socket(socket, allowed))
        return context, origins

    @contextmanager
    def item(self, title: str, folder: Callable[[], Path | None],
             debugging: Debugging = Debugging()) -> Iterator[ItemScope]:
        """The span of one browser item: pages opened by `page()` inside it are closed at its end.

        When the item fails (any exception but a skip), its last open page is screenshotted to
        `folder()/failure.png`; each lent context records a trace chunk under `--tcab-tracing`,
        kept as `folder()/trace.zip` (the last context it opened; `trace-2.zip`, ... for earlier
        ones) as the mode says.
        What was kept is in the scope's `kept`, also when the item raised.
        """
        if self._scope is not None:
            raise BrowserError("browser items do not nest: one item's pages at a time")
        scope = self._scope = ItemScope(title, folder, debugging)
        failed = True
        try:
            yield scope
            failed = False
        except pytest.skip.Exception:
            failed = False
            raise
        finally:
            self._scope = None
            self._finish(scope, failed)

    def page(self, viewport: tuple[int, int] = DEFAULT_VIEWPORT, origin: str | None = None,
             setup: Setup | None = None) -> Page:
        """A fresh page for the current item, in the context kept for (`origin`, `viewport`, `setup`).

        `origin` (a server's URL) is the one origin the context's pages may request anything of:
        a build's page cannot load a mockup or a player page of the plugin's into itself, and
        pages of two origins never share storage. None allows every loopback origin.
        `setup` runs once on a new context, before any page opens in it.
        """
        scope = self._scope
        if scope is None:
            raise BrowserError("pages are lent to items: open them inside `with browser.item(...)`")
        lent = self._lend((origin, viewport, setup), scope)
        page = lent.context.new_page()
        page.on("crash", lambda crashed: scope.crashed.append(crashed.url))
        scope.pages.append(page)
        return page

    def recycle(self, page: Page) -> None:
        """Close every page of `page`'s context and clear what they stored: the next page starts clean."""
        for lent in self._pool.values():
            if lent.context is page.context:
                self._clean(lent)
                return

    def release(self, origin: str) -> None:
        """Close every kept context of `origin` (a finished run's server), or one its pages reached."""
        gone = origin_of(origin)
        for key, lent in list(self._pool.items()):
            if (key[0] is not None and origin_of(key[0]) == gone) or gone in lent.origins:
                self._discard(lent)

    def _clean(self, lent: _Lent) -> None:
        """Close the context's pages, drop its cookies and clear every origin its pages reached;
        a context that cannot be cleaned (a crashed renderer, say) is closed and never lent again."""
        from playwright.sync_api import Error

        try:
            for page in lent.context.pages:
                if page is not lent.janitor_page:
                    page.close()
            lent.context.clear_cookies()
            for origin in sorted(lent.origins):
                lent.janitor.send("Storage.clearDataForOrigin", {"origin": origin, "storageTypes": "all"})
            lent.origins.clear()
        except Error:
            self._discard(lent)

    def _discard(self, lent: _Lent) -> None:
        """Close a context and never lend it again."""
        from playwright.sync_api import Error

        for key in [key for key, kept in self._pool.items() if kept is lent]:
            del self._pool[key]
        try:
            lent.context.close()
        except Error:
            pass  # the browser itself is gone: the next item says so

    def _lend(self, key: tuple[str | None, tuple[int, int], Setup | None], scope: ItemScope) -> _Lent:
        lent = self._pool.pop(key, None)
        if lent is None:
            context, origins = self._make_context(key[1], key[0])
            if key[2] is not None:
                key[2](context)
            janitor_page = context.new_page()
            lent = _Lent(context, origins, janitor_page, context.new_cdp_session(janitor_page))
            while len(self._pool) >= POOL_SIZE:
                oldest = next(iter(self._pool))
                if self._pool[oldest] in scope.lent:
                    break
                self._pool.pop(oldest).context.close()
        self._pool[key] = lent  # the most recently used last
        if lent not in scope.lent:
            scope.lent.append(lent)
            if scope.debugging.tracing != "off":
                if not lent.traced:
                    lent.context.tracing.start(title=scope.title, screenshots=True, snapshots=True)
                    lent.traced = True
                else:
                    lent.context.tracing.start_chunk(title=scope.title)
                lent.chunk = True
        return lent

    def _finish(self, scope: ItemScope, failed: bool) -> None:
        """Keep what the item's outcome asks for, then clean every context it was lent."""
        from playwright.sync_api import Error

        debugging = scope.debugging
        if failed and debugging.screenshot_on_failure:
            page = next((page for page in reversed(scope.pages) if not page.is_closed()), None)
            folder = scope.folder() if page is not None else None
            if page is not None and folder is not None:
                shot = folder / "failure.png"
                try:
                    shot.parent.mkdir(parents=True, exist_ok=True)
                    page.screenshot(path=shot, type="png", timeout=FAILURE_SHOT_TIMEOUT_MS)
                    scope.kept["failure_screenshot"] = str(shot)
                except Error:
                    pass  # a hung or crashed page: its failure already says why
        keep = debugging.tracing == "on" or (failed and debugging.tracing == "retain-on-failure")
        traces: list[str] = []
        for lent in reversed(scope.lent):  # the last context an item opened is its own (a check's
            if lent.chunk:                  # mockup context comes first): it gets trace.zip
                lent.chunk = False
                folder = scope.folder() if keep else None
                path = None if folder is None else folder / ("trace.zip" if not traces else f"trace-{len(traces) + 1}.zip")
                try:
                    if path is not None:
                        path.parent.mkdir(parents=True, exist_ok=True)
                    lent.context.tracing.stop_chunk(path=path)
                    if path is not None:
                        traces.append(str(path))
                except Error:
                    pass  # a crashed context has no trace to give; the item's failure says why
            if scope.crashed:
                self._discard(lent)  # the next item, of this run or the next, gets a fresh context
            else:
                self._clean(lent)
        if traces:
            scope.kept["trace"] = traces[0]
            if len(traces) > 1:
                scope.kept["traces"] = traces

    def close(self) -> None:
        """Close the browser, stop the driver, remove the scratch directory; safe to call twice."""
        if self._closed:
            return
        self._closed = True
        if self._stop_serving is not None:
            self._stop_serving()
        self._pool.clear()  # closed with the browser
        try:
            self.browser.close()
        finally:
            self._playwright.stop()
            self._scratch.cleanup()
            self._close_network()
            _running.discard(self._thread)

    def _close_network(self) -> None:
        if self._network is not None:
            self._network.close()
