"""The session's Chromium: where it is found, how it is launched, and the loopback-only contexts items drive."""

from __future__ import annotations

import json
import os
import platform
import re
import shutil
import sys
import tempfile
import threading
import warnings
from collections import OrderedDict
from collections.abc import Callable
from collections.abc import Iterator
from collections.abc import Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from dataclasses import field
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any
from typing import Literal
from typing import cast
from urllib.parse import urlsplit

import pytest

from pytest_tcab.errors import TcabError
from pytest_tcab.failures import is_plain
from pytest_tcab.failures import item_failure
from pytest_tcab.nodeids import match_saved_form
from pytest_tcab.outcomes import NotGraded
from pytest_tcab.outcomes import mark_not_graded
from pytest_tcab.outcomes import skip_at_item
from pytest_tcab.run.build.sandbox import hidden_places

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext
    from playwright.sync_api import CDPSession
    from playwright.sync_api import Page
    from playwright.sync_api import Route
    from playwright.sync_api import WebSocketRoute

NO_BROWSER_REASON = (
    "no Chromium found: apt-get install chromium, or pass --tcab-chromium=PATH "
    "(or set TCAB_CHROMIUM)"
)
"""The one skip reason every browser item shares when discovery finds nothing."""

NOT_CONFINED = (
    "--tcab-no-sandbox: Chromium runs in the host's network and sees the host's files (the suite, "
    "the results folder, your home); pages are kept to the loopback server by Playwright's routes "
    "and Chromium's flags only (docs/trust.md)"
)
"""Said once per session that runs pages unconfined."""

NO_FFMPEG_REASON = (
    "video outputs need ffmpeg to encode the clip: apt-get install ffmpeg, "
    "or run `playwright install ffmpeg`"
)
"""Why a recording context cannot be made; items with a video output fail with it."""

CONFINING_ARGS: tuple[str, ...] = (
    "--disable-quic",
    "--webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost",
)
"""Defence in depth behind the network namespace, and with Playwright's routes and
FALLBACK_SCRIPT the only guard where there is none. Measured one by one against a listener
(tests/run/browser/netprobe): the resolver rules stop every request of the HTTP stack to another
host (fetch, WebSocket, frames, windows, images, EventSource, WebTransport); the WebRTC policy
stops STUN and TURN over UDP but not TURN over TCP; `--disable-quic` keeps ordinary requests
off HTTP/3 and does not stop WebTransport."""

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

FALLBACK_SCRIPT = """(() => {
  for (const name of ["RTCPeerConnection", "webkitRTCPeerConnection", "RTCDataChannel", "WebTransport"]) {
    try { delete globalThis[name]; } catch (_) {}
  }
})();"""
"""Where Chromium runs unconfined (--tcab-no-sandbox), every frame loses the APIs that open
connections Playwright's routes do not see: WebRTC (STUN/TURN over UDP and TCP) and WebTransport."""

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
"""The only hosts a driven page may reach: the build and its drivers come from the loopback server."""

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

# Playwright's executable layouts, keyed like its registry's host platforms.
_CHROMIUM_PARTS = {
    "linux-x64": ("chrome-linux64", "chrome"),
    "linux-arm64": ("chrome-linux-arm64", "chrome"),
    "mac-x64": ("chrome-mac-x64", "Google Chrome for Testing.app", "Contents", "MacOS",
                "Google Chrome for Testing"),
    "mac-arm64": ("chrome-mac-arm64", "Google Chrome for Testing.app", "Contents", "MacOS",
                  "Google Chrome for Testing"),
    "win-x64": ("chrome-win64", "chrome.exe"),
}
_FFMPEG_NAMES = {
    "linux-x64": "ffmpeg-linux",
    "linux-arm64": "ffmpeg-linux",
    "mac-x64": "ffmpeg-mac",
    "mac-arm64": "ffmpeg-mac",
    "win-x64": "ffmpeg-win64.exe",
}


class PageCrashed(TcabError):
    """A page of the item crashed its renderer: the run's own failure, never "not graded"."""

    def __init__(self, urls: list[str], config: pytest.Config) -> None:
        cap = int(config.getoption("tcab_page_memory")) // 2**20
        super().__init__(f"the page crashed (its renderer died at {urls[0]}): a page past its JavaScript heap "
                         f"cap ({cap} MiB, --tcab-page-memory), or one that brings its renderer down, fails here")


class BrowserError(TcabError):
    """Chromium was asked for but cannot be used: a wrong path, a failed launch, no video encoder."""


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


@dataclass(frozen=True)
class ChromiumLocation:
    """A Chromium executable and which discovery step found it (shown in failures and headers)."""

    path: Path
    source: str
    """``--tcab-chromium``, ``TCAB_CHROMIUM``, ``playwright`` or ``system``."""


def find_chromium(explicit: str | None) -> ChromiumLocation | None:
    """Find Chromium in DESIGN order; None means "skip every browser item".

    A path the user named (option or environment) that is not an executable file raises
    instead of falling through, so a typo never silently tests with another browser.
    """
    for source, value in (("--tcab-chromium", explicit),
                          ("TCAB_CHROMIUM", os.environ.get("TCAB_CHROMIUM"))):
        if value:
            path = Path(value).expanduser()
            if not _is_executable(path):
                raise BrowserError(f"{source}={value}: no executable file there")
            return ChromiumLocation(path, source)
    own = playwright_chromium()
    if own is not None and _is_executable(own):
        return ChromiumLocation(own, "playwright")
    for candidate in (Path("/usr/bin/chromium"), shutil.which("chromium")):
        if candidate is not None and _is_executable(Path(candidate)):
            return ChromiumLocation(Path(candidate), "system")
    return None


def _is_executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def playwright_chromium() -> Path | None:
    """Where ``playwright install chromium`` puts this Playwright's browser (it may be absent)."""
    parts = _CHROMIUM_PARTS.get(_host_platform())
    if parts is None:
        return None
    return playwright_registry() / f"chromium-{_revisions()['chromium']}" / Path(*parts)


def playwright_registry() -> Path:
    """Playwright's browser directory as the user's environment defines it.

    Mirrors the driver's own rule (``PLAYWRIGHT_BROWSERS_PATH``, ``0`` meaning inside the
    package, else the per-user cache). It reads the environment at call time; BrowserSession
    only redirects the variable for the instant the driver starts, so this keeps seeing the
    user's real location.
    """
    configured = os.environ.get("PLAYWRIGHT_BROWSERS_PATH")
    if configured == "0":
        return _driver_package() / ".local-browsers"
    if configured:
        return Path(os.environ.get("INIT_CWD") or os.getcwd(), configured)
    if sys.platform == "darwin":
        cache = Path.home() / "Library" / "Caches"
    elif sys.platform == "win32":
        cache = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    else:
        cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "ms-playwright"


def ffmpeg_for_playwright(cache_dir: Path) -> Path | None:
    """Return a browsers directory whose ``ffmpeg-<rev>`` Playwright's video recorder can run.

    Playwright records video only with its own downloaded ffmpeg. If that download exists the
    user's registry is returned unchanged; otherwise `cache_dir` gets a symlink named like it
    pointing at the system ffmpeg (Debian's encodes the VP9 Playwright asks for). Hand the
    result to the driver as ``PLAYWRIGHT_BROWSERS_PATH`` before ``sync_playwright()`` starts.
    None means no ffmpeg anywhere: recording contexts then fail with NO_FFMPEG_REASON.
    """
    name = _FFMPEG_NAMES.get(_host_platform())
    if name is None:
        return None
    folder = f"ffmpeg-{_revisions()['ffmpeg']}"
    original = playwright_registry()
    if _is_executable(original / folder / name):
        return original
    system = shutil.which("ffmpeg")
    if system is None:
        return None
    link = cache_dir / folder / name
    link.parent.mkdir(parents=True, exist_ok=True)
    if not link.is_symlink():
        link.symlink_to(system)
    return cache_dir


def _host_platform() -> str:
    machine = platform.machine().lower()
    arch = "arm64" if machine in ("arm64", "aarch64") else "x64"
    if sys.platform.startswith("linux"):
        return f"linux-{arch}"
    if sys.platform == "darwin":
        return f"mac-{arch}"
    return "win-x64" if sys.platform == "win32" else "unknown"


def _driver_package() -> Path:
    return Path(str(files("playwright"))) / "driver" / "package"


@cache
def _revisions() -> dict[str, str]:
    """Browser revisions this Playwright expects, from its driver's ``browsers.json``."""
    data = json.loads((_driver_package() / "browsers.json").read_text(encoding="utf-8"))
    return {entry["name"]: entry["revision"] for entry in data["browsers"]}


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
        profiles = Path(self._scratch.name) / "profiles"
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
        if not options["headless"] and sys.platform.startswith("linux") and not (
                os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
            self._playwright.stop()
            self._scratch.cleanup()
            self._close_network()
            raise BrowserError(NO_DISPLAY)
        executable = chromium.path if self._network is None else self._network.executable
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
        allowed = None if origin is None else _origin_of(origin)
        context.route("**/*", lambda route: _loopback_only(route, origins, allowed))
        context.route_web_socket(lambda url: _any_url(url), lambda socket: _loopback_only_socket(socket, allowed))
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


def _origin_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def _reachable(url: str, allowed: str | None) -> bool:
    """Whether a page whose context allows `allowed` (None: any loopback origin) may request `url`."""
    if allowed is None:
        return urlsplit(url).hostname in LOOPBACK_HOSTS
    return _origin_of(url) == allowed


def _loopback_only(route: Route, origins: set[str], allowed: str | None) -> None:
    url = route.request.url
    if _reachable(url, allowed):
        origins.add(_origin_of(url))
        route.fallback()
    else:
        route.abort("blockedbyclient")


def _any_url(url: str) -> bool:
    return True


def _loopback_only_socket(socket: WebSocketRoute, allowed: str | None) -> None:
    # A socket of a page reaches the host and port its context allows, as ws:// or wss://.
    target = None if allowed is None else allowed.replace("http", "ws", 1)
    if _reachable(socket.url, target):
        socket.connect_to_server()
    else:
        socket.close(code=1008, reason="pytest-tcab: a driven page may reach only the loopback server")


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
        config.stash[_debug_key] = DebugOptions(cast(Tracing, tracing), headed, slowmo)
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
    debug = debug_options(request.config)
    return {"args": [*LAUNCH_ARGS, heap_cap_flag(request.config)], "headless": not debug.headed,
            "slow_mo": debug.slowmo}


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
    location = find_chromium(request.config.getoption("tcab_chromium", None))
    if location is None:
        skip_at_item(NO_BROWSER_REASON)
    ignored = ignored_playwright_options(request.config)
    if ignored:
        warnings.warn(pytest.PytestWarning(
            f"pytest-playwright's {', '.join(ignored)} do not apply to tcab items: they run in pytest-tcab's own "
            "Chromium (--tcab-chromium, --tcab-viewport) and keep their own media (a screenshot on failure, "
            "--tcab-tracing); --tracing, --headed and --slowmo are honoured (docs/debugging.md)"),
            stacklevel=1)
    confine = not request.config.getoption("tcab_no_sandbox", False)
    if not confine:
        warnings.warn(pytest.PytestWarning(NOT_CONFINED), stacklevel=1)
    session = BrowserSession(location, tcab_launch_args, tcab_context_args, confine=confine,
                             hidden=hidden_places(request.config))
    try:
        yield session
    finally:
        session.close()


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

