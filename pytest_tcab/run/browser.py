"""The session's Chromium: where it is found, how it is launched, and the loopback-only contexts items drive."""

from __future__ import annotations

import json
import os
import platform
import shutil
import sys
import tempfile
import threading
import warnings
from collections.abc import Callable
from collections.abc import Iterator
from collections.abc import Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any
from urllib.parse import urlsplit

import pytest

from pytest_tcab.errors import TcabError
from pytest_tcab.failures import is_plain
from pytest_tcab.failures import item_failure
from pytest_tcab.nodeids import match_saved_form
from pytest_tcab.outcomes import skip_at_item

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext
    from playwright.sync_api import Route
    from playwright.sync_api import WebSocketRoute

NO_BROWSER_REASON = (
    "no Chromium found: apt-get install chromium, or pass --tcab-chromium=PATH "
    "(or set TCAB_CHROMIUM)"
)
"""The one skip reason every browser item shares when discovery finds nothing."""

NOT_CONFINED = (
    "--tcab-no-sandbox: Chromium runs in the host's network; pages are kept to the loopback server "
    "by Playwright's routes and Chromium's flags only (README \"Trust model\")"
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
(tests/browser/netprobe): the resolver rules stop every request of the HTTP stack to another
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


class BrowserError(TcabError):
    """Chromium was asked for but cannot be used: a wrong path, a failed launch, no video encoder."""


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
    """One Playwright driver and one Chromium for the whole session; a fresh context per item.

    Uses the sync API, so it must never be created or used inside a running asyncio loop.
    """

    def __init__(
        self,
        chromium: ChromiumLocation,
        launch_args: Mapping[str, Any] | None = None,
        context_args: Mapping[str, Any] | None = None,
        confine: bool = True,
    ) -> None:
        from playwright.sync_api import Error
        from playwright.sync_api import sync_playwright

        from pytest_tcab.run import netns
        from pytest_tcab.run import serve

        if threading.get_ident() in _running:
            raise BrowserError(
                "a BrowserSession is already running in this thread; Playwright's sync API "
                "allows one at a time per thread, so close it or share it"
            )
        self.chromium = chromium
        self.confined = confine
        """Whether Chromium runs in a network namespace of its own (else flags and routes guard it)."""
        self._network = netns.ConfinedNetwork(netns.probe(), chromium.path) if confine else None
        self._stop_serving: Callable[[], None] | None = None
        self._context_args = dict(context_args or {})
        self._scratch = tempfile.TemporaryDirectory(prefix="tcab-playwright-")
        browsers = ffmpeg_for_playwright(Path(self._scratch.name))
        self.video_unavailable: str | None = None if browsers is not None else NO_FFMPEG_REASON
        """Why recording contexts cannot be made on this host, or None when they can."""
        try:
            with _environ("PLAYWRIGHT_BROWSERS_PATH", None if browsers is None else str(browsers)):
                self._playwright = sync_playwright().start()
        except BaseException:
            self._scratch.cleanup()
            self._close_network()
            raise
        options = {"args": list(LAUNCH_ARGS), "headless": True, **(launch_args or {})}
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

    def new_context(
        self,
        viewport: tuple[int, int] = DEFAULT_VIEWPORT,
        record_video_dir: Path | None = None,
    ) -> BrowserContext:
        """A context at `viewport` logical pixels that can reach nothing but the loopback server.

        With `record_video_dir`, every page records a full-size clip there (``.webm``), saved
        when the page closes.
        """
        width, height = viewport
        size = {"width": width, "height": height}
        options: dict[str, Any] = {
            **self._context_args,
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
        context.route("**/*", lambda route: _loopback_only(route))
        context.route_web_socket(lambda url: _any_url(url), lambda socket: _loopback_only_socket(socket))
        return context

    def close(self) -> None:
        """Close the browser, stop the driver, remove the scratch directory; safe to call twice."""
        if self._closed:
            return
        self._closed = True
        if self._stop_serving is not None:
            self._stop_serving()
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


def _is_loopback(url: str) -> bool:
    return urlsplit(url).hostname in LOOPBACK_HOSTS


def _loopback_only(route: Route) -> None:
    if _is_loopback(route.request.url):
        route.fallback()
    else:
        route.abort("blockedbyclient")


def _any_url(url: str) -> bool:
    return True


def _loopback_only_socket(socket: WebSocketRoute) -> None:
    if _is_loopback(socket.url):
        socket.connect_to_server()
    else:
        socket.close(code=1008, reason="pytest-tcab: a driven page may reach only the loopback server")


@pytest.fixture(scope="session")
def tcab_launch_args() -> dict[str, Any]:
    """Override point: keyword arguments for ``chromium.launch`` (the executable is always ours)."""
    return {"args": list(LAUNCH_ARGS), "headless": True}


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
    confine = not request.config.getoption("tcab_no_sandbox", False)
    if not confine:
        warnings.warn(pytest.PytestWarning(NOT_CONFINED), stacklevel=1)
    session = BrowserSession(location, tcab_launch_args, tcab_context_args, confine=confine)
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

    def setup(self) -> None:
        try:
            super().setup()
        except pytest.skip.Exception as skip:
            if not (self.config.getoption("tcab_strict") and str(skip.msg) == NO_BROWSER_REASON):
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
            pytest.fail(self._unavailable, pytrace=False)
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
    item.use_browser(tcab_browser)

