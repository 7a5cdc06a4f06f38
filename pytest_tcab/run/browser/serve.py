"""Loopback static servers that cannot serve anything outside the folders they were given: the
build's (its output, nothing else) and the plugin's own pages' (`PageServer`)."""

from __future__ import annotations

import mimetypes
import os
import secrets
import shutil
import socket
import socketserver
import sys
import threading
import urllib.parse
from collections.abc import Callable
from collections.abc import Mapping
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler
from http.server import ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Self

HOST = "127.0.0.1"
"""Loopback only: a produced build is untrusted and must not be reachable from the network."""

CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".htm": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".map": "application/json",
    ".txt": "text/plain; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
    ".ico": "image/x-icon",
    ".wasm": "application/wasm",
    ".webm": "video/webm",
    ".mp4": "video/mp4",
    ".woff2": "font/woff2",
}
"""Fixed types for what games and drivers load. The stdlib guesses from the host's mime database,
which may lack ``.mjs`` (module scripts are then refused) or ``.wasm`` (streaming compile fails),
and sends HTML without a charset (non-ASCII text turns to mojibake)."""


Observer = Callable[["StaticServer"], None]

_observers: list[Observer] = []
_running: list[StaticServer] = []


def on_start(observer: Observer) -> Callable[[], None]:
    """Call `observer` with every server running now and every one started until the returned
    function is called: a confined browser serves each of them inside its network namespace too."""
    _observers.append(observer)
    for server in _running:
        observer(server)
    return lambda: _observers.remove(observer)


class StaticServer:
    """Serve ``root`` at ``/`` (unless None) and each of ``mounts`` at its URL prefix, on an
    ephemeral port; any other path, or one that tries to leave its folder, is the same 404.

    Use as a context manager; the server runs in a daemon thread between enter and exit.
    A mount prefix such as ``/__tcab__/`` shadows any folder of that name in ``root``.
    """

    def __init__(self, root: Path | None, mounts: Mapping[str, Path] | None = None,
                 headers: Mapping[str, str] | None = None) -> None:
        self._headers = dict(headers or {})
        """Sent with every response (the review page's copy of a site: its sandbox, see `review.page`)."""
        self._folders: dict[str, Path] = {}
        routes: list[tuple[list[str], Path]] = []
        served = [] if root is None else [("/", root)]
        for prefix, folder in [*served, *(mounts or {}).items()]:
            parts = _prefix_parts(prefix)
            if parts is None or prefix in self._folders:
                raise ValueError(f"a mount prefix looks like '/name/' (not '/'), got {prefix!r}")
            real = Path(os.path.realpath(folder))
            if not real.is_dir():
                raise NotADirectoryError(f"cannot serve {folder}: not a directory")
            self._folders[prefix] = real
            routes.append((parts, real))
        # Longest prefix first, so a mount wins over a same-named folder of the root.
        self._routes = sorted(routes, key=lambda route: len(route[0]), reverse=True)
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None
        self._also: list[tuple[_Server, threading.Thread]] = []

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT/``, available while the server runs."""
        if self._httpd is None:
            raise RuntimeError("StaticServer is not running; use it as a context manager")
        return f"http://{HOST}:{self._httpd.server_address[1]}/"

    def url_for(self, prefix: str, relpath: str) -> str:
        """The URL of ``relpath`` (a POSIX path) inside the folder served at ``prefix``."""
        if prefix not in self._folders:
            raise ValueError(f"nothing is served at {prefix!r}; known: {sorted(self._folders)}")
        return self.url + prefix.lstrip("/") + urllib.parse.quote(relpath.lstrip("/"))

    def __enter__(self) -> Self:
        handler = type("_BoundHandler", (_Handler,), {"routes": self._routes, "headers_sent": self._headers})
        self._httpd = _Server((HOST, 0), handler)
        # A short poll interval keeps shutdown (once per item or session) from costing 0.5 s.
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=f"tcab-serve-{self._httpd.server_address[1]}",
            daemon=True,
        )
        self._thread.start()
        _running.append(self)
        for observer in _observers:
            observer(self)
        return self

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("StaticServer is not running; use it as a context manager")
        return int(self._httpd.server_address[1])

    def serve_also(self, listener: socket.socket) -> None:
        """Serve the same folders on `listener` too (a socket made in another network namespace)."""
        assert self._httpd is not None
        httpd = _Server(listener.getsockname(), self._httpd.RequestHandlerClass, bind_and_activate=False)
        httpd.socket.close()
        httpd.socket = listener
        httpd.server_name, httpd.server_port = HOST, self.port
        thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                  name=f"tcab-serve-also-{self.port}", daemon=True)
        thread.start()
        self._also.append((httpd, thread))

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        assert self._httpd is not None and self._thread is not None
        if self in _running:
            _running.remove(self)
        for httpd, thread in [(self._httpd, self._thread), *self._also]:
            httpd.shutdown()
            httpd.server_close()
            thread.join()
        self._also = []
        self._httpd = None
        self._thread = None


class PageServer(StaticServer):
    """The server of pages the plugin makes itself (mockup renders, the particle player, replay
    renderers): an origin of its own, each of ``folders`` served under a prefix drawn for this
    server (``/<secret>/<name>/``), nothing at any other path.

    A build's page never runs in a context of this origin, and its own context's guard keeps it
    off it (`BrowserSession.page`); should a page find the port anyway, it cannot name a file there.
    """

    def __init__(self, folders: Mapping[str, Path]) -> None:
        self._secret = secrets.token_urlsafe(18)
        super().__init__(None, {self._prefix(name): folder for name, folder in folders.items()})

    def page_url(self, name: str, relpath: str = "") -> str:
        """The URL of ``relpath`` (a POSIX path) inside the folder served as ``name``."""
        return self.url_for(self._prefix(name), relpath)

    def _prefix(self, name: str) -> str:
        return f"/{self._secret}/{name}/"


class _Server(ThreadingHTTPServer):
    def server_bind(self) -> None:
        # HTTPServer.server_bind resolves the host name (getfqdn), which can stall on a host
        # with slow DNS; the name is never used here.
        socketserver.TCPServer.server_bind(self)
        self.server_name = HOST
        self.server_port = self.server_address[1]

    def handle_error(self, request: object, client_address: object) -> None:
        # A browser closing a connection mid-response is routine, not worth a traceback.
        # Anything else is a bug in this module and is printed as usual.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)  # type: ignore[arg-type]


class _Handler(BaseHTTPRequestHandler):
    """GET and HEAD of files only; other methods get 501 from the base class."""

    routes: list[tuple[list[str], Path]]
    """(prefix segments, real folder), longest prefix first; set per server by a subclass."""
    headers_sent: dict[str, str] = {}
    """Headers of every response, beside the cache's; set per server by a subclass."""

    def do_GET(self) -> None:
        self._serve(send_body=True)

    def do_HEAD(self) -> None:
        self._serve(send_body=False)

    def log_message(self, format: str, *args: object) -> None:
        """Silent: a page load makes dozens of requests, and the test run's output is for tests."""

    def end_headers(self) -> None:
        # Every rebuild serves different bytes at the same URLs; nothing may come from a cache.
        self.send_header("Cache-Control", "no-store")
        for name, value in self.headers_sent.items():
            self.send_header(name, value)
        super().end_headers()

    def _serve(self, send_body: bool) -> None:
        raw = self.path.split("?", 1)[0].split("#", 1)[0]
        segments = _safe_segments(raw)
        route = None if segments is None else next(
            ((base, segments[len(parts):]) for parts, base in self.routes if segments[: len(parts)] == parts), None)
        if route is None:
            # Refused like a missing file: a page learns nothing from which paths were refused.
            self.send_error(HTTPStatus.NOT_FOUND)
            return
        base, inner = route
        target = _contained(base, inner)
        if target is not None and target.is_dir():
            if not raw.endswith("/"):
                # Relative URLs in the folder's index.html resolve against the trailing slash.
                self.send_response(HTTPStatus.MOVED_PERMANENTLY)
                self.send_header("Location", raw + "/")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            inner = [*inner, "index.html"]
            target = _contained(base, inner)
        if target is None or not target.is_file():
            self.send_error(HTTPStatus.NOT_FOUND)
            return
        with target.open("rb") as body:
            size = os.fstat(body.fileno()).st_size
            self.send_response(HTTPStatus.OK)
            # Typed by the name asked for, not by where a symlink inside the folder leads.
            self.send_header("Content-Type", _content_type(inner[-1]))
            self.send_header("Content-Length", str(size))
            self.end_headers()
            if send_body:
                shutil.copyfileobj(body, self.wfile)


def _safe_segments(raw: str) -> list[str] | None:
    """The decoded path segments of a request path, or None when it tries to escape.

    Refused outright rather than normalised: a path not starting with ``/`` (absolute-form or
    garbage), an encoded slash (``%2f`` would turn one segment into two after decoding), a
    backslash (a separator on Windows), NUL, ``..`` in any segment, empty segments (``//etc``)
    and undecodable bytes. No legitimate page asks for any of these.
    """
    if not raw.startswith("/") or "%2f" in raw.lower() or "%5c" in raw.lower():
        return None
    try:
        decoded = urllib.parse.unquote(raw, errors="strict")
    except UnicodeDecodeError:
        return None
    if "\\" in decoded or "\x00" in decoded:
        return None
    segments = decoded.split("/")[1:]
    if segments and segments[-1] == "":
        segments.pop()  # a trailing slash names a folder
    if any(segment in ("", ".", "..") for segment in segments):
        return None
    return segments


def _prefix_parts(prefix: str) -> list[str] | None:
    """The segments of a prefix such as ``/__tcab__/`` (none for ``/``), or None if malformed."""
    if prefix == "/":
        return []
    if not (prefix.startswith("/") and prefix.endswith("/")):
        return None
    parts = prefix.strip("/").split("/")
    if any(part in ("", ".", "..") for part in parts):
        return None
    return parts


def _contained(base: Path, segments: list[str]) -> Path | None:
    """``base/segments`` when its real path (all symlinks resolved) stays inside ``base``."""
    real = os.path.realpath(base.joinpath(*segments))
    if real == str(base) or real.startswith(str(base) + os.sep):
        return Path(real)
    return None


def _content_type(name: str) -> str:
    known = CONTENT_TYPES.get(os.path.splitext(name)[1].lower())
    if known is not None:
        return known
    guessed, _ = mimetypes.guess_type(name)
    return guessed or "application/octet-stream"
