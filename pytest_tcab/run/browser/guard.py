"""The loopback guard: what keeps a driven page to the loopback server, by flags, scripts and routes."""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from playwright.sync_api import Route
    from playwright.sync_api import WebSocketRoute

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

FALLBACK_SCRIPT = """(() => {
  for (const name of ["RTCPeerConnection", "webkitRTCPeerConnection", "RTCDataChannel", "WebTransport"]) {
    try { delete globalThis[name]; } catch (_) {}
  }
})();"""
"""Where Chromium runs unconfined (--tcab-no-sandbox), every frame loses the APIs that open
connections Playwright's routes do not see: WebRTC (STUN/TURN over UDP and TCP) and WebTransport."""

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
"""The only hosts a driven page may reach: the build and its drivers come from the loopback server."""


def origin_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def reachable(url: str, allowed: str | None) -> bool:
    """Whether a page whose context allows `allowed` (None: any loopback origin) may request `url`."""
    if allowed is None:
        return urlsplit(url).hostname in LOOPBACK_HOSTS
    return origin_of(url) == allowed


def loopback_only(route: Route, origins: set[str], allowed: str | None) -> None:
    url = route.request.url
    if reachable(url, allowed):
        origins.add(origin_of(url))
        route.fallback()
    else:
        route.abort("blockedbyclient")


def any_url(url: str) -> bool:
    return True


def loopback_only_socket(socket: WebSocketRoute, allowed: str | None) -> None:
    # A socket of a page reaches the host and port its context allows, as ws:// or wss://.
    target = None if allowed is None else allowed.replace("http", "ws", 1)
    if reachable(socket.url, target):
        socket.connect_to_server()
    else:
        socket.close(code=1008, reason="pytest-tcab: a driven page may reach only the loopback server")
