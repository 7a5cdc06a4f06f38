"""The review page's two origins on loopback: the page's own, and one per run for its build.

The page's origin serves the worklist, each run's review form, its script and style, the media
it names (by index, `view.MediaIndex`) and the save endpoint. A save is accepted only with the
session's token (in the page, never in a cookie a frame could ride), from the page's own Origin,
as JSON, to the Host the page is served at; everything else is refused and counted. Every
response carries a CSP that lets the page run only its own script and frame only the run's
build origin, and forbids anyone framing the page.

Each run's build is served from its site copy alone, on a port of its own, with a CSP of its own:
`sandbox allow-scripts` (even opened outside the frame its origin is opaque) and `'self'` for
everything it loads or connects to, so it cannot send a request to the page's origin at all.
"""

from __future__ import annotations

import hmac
import json
import re
import secrets
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

from pytest_tcab.errors import TcabError
from pytest_tcab.review.page.form import prefilled
from pytest_tcab.review.page.form import read_form
from pytest_tcab.review.page.markup import run_page
from pytest_tcab.review.page.markup import worklist_page
from pytest_tcab.review.page.runs import WORK_ORDER
from pytest_tcab.review.page.runs import ReviewedRun
from pytest_tcab.review.page.runs import work_state
from pytest_tcab.review.page.view import MediaIndex
from pytest_tcab.review.page.view import RunView
from pytest_tcab.review.page.view import run_view
from pytest_tcab.run.browser.serve import CONTENT_TYPES
from pytest_tcab.run.browser.serve import HOST
from pytest_tcab.run.browser.serve import StaticServer
from pytest_tcab.suite import Suite

TOKEN_HEADER = "X-Tcab-Token"
_RANGE = re.compile(r"bytes=(\d*)-(\d*)")
"""One byte range (what a video element asks for); several ranges are answered whole."""
MAX_SAVE_BYTES = 256 * 1024
ASSETS = {"/page.js": Path(__file__).with_name("page.js"), "/page.css": Path(__file__).with_name("page.css")}
SITE_POLICY = ("sandbox allow-scripts; default-src 'self' data: blob: 'unsafe-inline' 'unsafe-eval' "
               "'wasm-unsafe-eval'; form-action 'none'; base-uri 'self'; frame-ancestors {page}")
"""The build's origin: sandboxed whatever opens it, loading and connecting to itself alone, framed only by the page."""


def page_policy(site: str | None) -> str:
    """The page's CSP: its own script and style, its own media and saves, the run's build as its one frame."""
    frame = site.rstrip("/") if site else "'none'"
    return ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; media-src 'self'; "
            f"connect-src 'self'; frame-src {frame}; form-action 'none'; frame-ancestors 'none'; base-uri 'none'")


@dataclass
class Reviewing:
    """What the page works from: RESULTS' runs, the suite, the reviews folder, who reviews."""

    runs: list[ReviewedRun]
    suite: Suite
    reviews: Path
    reviewer: str
    figures: Callable[[ReviewedRun], dict[str, Any]]
    """The run's folded `review` key (every review of it, recomputed now)."""
    save: Callable[[ReviewedRun, Any, str], dict[str, Any] | None]
    """Write a review of the run with the revision's note; the revision, or None when nothing changed."""
    own: Callable[[ReviewedRun], Any]
    """The reviewer's saved review of the run, or None."""
    media: MediaIndex
    refused: int = 0
    """Requests refused before their fields were read (no token, another origin, another method)."""
    saved: list[dict[str, Any]] = field(default_factory=list)
    """Every revision written in this session."""


class ReviewServer:
    """The page's origin and the runs' build origins; `serve_forever` until interrupted."""

    def __init__(self, reviewing: Reviewing) -> None:
        self.reviewing = reviewing
        self.token = secrets.token_urlsafe(32)
        self._lock = threading.Lock()
        self._sites: dict[str, StaticServer] = {}
        handler = type("_BoundReviewHandler", (_ReviewHandler,), {"server_state": self})
        self.httpd = _QuietServer((HOST, 0), handler)

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.httpd.server_address[1]}/"

    @property
    def origin(self) -> str:
        return self.url.rstrip("/")

    def run(self, slug: str) -> ReviewedRun | None:
        return next((run for run in self.reviewing.runs if run.slug == slug), None)

    def site_url(self, run: ReviewedRun) -> str | None:
        """The run's build origin (started on first use), serving its site copy and nothing else."""
        if run.site is None:
            return None
        with self._lock:
            server = self._sites.get(run.slug)
            if server is None:
                server = StaticServer(run.site, headers={
                    "Content-Security-Policy": SITE_POLICY.format(page=self.origin),
                    # Module scripts of an opaque-origin document are fetched with CORS.
                    "Access-Control-Allow-Origin": "*",
                    "Referrer-Policy": "no-referrer",
                })
                server.__enter__()
                self._sites[run.slug] = server
        return server.url

    def view(self, run: ReviewedRun) -> RunView:
        return run_view(self.reviewing.suite, run, self.reviewing.media)

    def worklist(self) -> str:
        rows: list[dict[str, Any]] = []
        problems: list[str] = []
        for run in self.reviewing.runs:
            figures = self.reviewing.figures(run)
            mine = next((r for r in figures.get("reviews", []) if r.get("reviewer") == self.reviewing.reviewer), None)
            score = figures.get("score")
            figure = (f"{score['value']:.0%} of {figures.get('reviewed', 0)} review(s)" if score else
                      f"none yet ({figures.get('reviews_total', 0)} review(s))")
            rows.append({"slug": run.slug, "name": run.name, "heading": run.heading, "state": work_state(mine),
                         "figure": figure})
            problems += [*figures.get("problems", []), *figures.get("ignored", [])]
        rows.sort(key=lambda row: (WORK_ORDER.index(row["state"]), row["name"]))
        return worklist_page(rows, self.reviewing.reviewer, self.token, problems)

    def page(self, run: ReviewedRun) -> str:
        view = self.view(run)
        own = self.reviewing.own(run)
        fields = prefilled(view, own)
        folded = self.reviewing.figures(run)
        problems = [*folded.get("problems", []), *folded.get("ignored", [])]  # review files that count nowhere
        return run_page(view, reviewer=self.reviewing.reviewer, token=self.token, site_url=self.site_url(run),
                        fields=fields, figures=self.own_figures(run), problems=problems)

    def own_figures(self, run: ReviewedRun) -> dict[str, Any]:
        """The run's figures and the reviewer's own review among them, as the page shows them."""
        figures = self.reviewing.figures(run)
        mine = next((r for r in figures.get("reviews", []) if r.get("reviewer") == self.reviewing.reviewer), None)
        return {"run": {key: figures.get(key) for key in ("score", "rating", "reviewed", "reviews_total", "complete")},
                "mine": mine}

    def save(self, run: ReviewedRun, payload: Any) -> tuple[HTTPStatus, dict[str, Any]]:
        """A save's fields read, checked and written; the recomputed figures, or the reviewer's mistakes."""
        if not isinstance(payload, dict) or not isinstance(payload.get("fields"), dict):
            return HTTPStatus.BAD_REQUEST, {"errors": ["a save sends {\"fields\": {...}, \"revision\": \"...\"}"]}
        view = self.view(run)
        if view.problem is not None:
            return HTTPStatus.CONFLICT, {"errors": [view.problem]}
        first = self.reviewing.own(run) is None
        build = run.data.get("build_digest")  # the build graded: the review names what it reviewed
        submission = read_form(payload["fields"], payload.get("revision"), view, self.reviewing.reviewer, build, first)
        if submission.review is None:
            return HTTPStatus.BAD_REQUEST, {"errors": submission.errors}
        with self._lock:
            try:
                revision = self.reviewing.save(run, submission.review, submission.note)
            except TcabError as exc:
                return HTTPStatus.BAD_REQUEST, {"errors": str(exc).splitlines()}
        if revision is not None:
            self.reviewing.saved.append(revision)
        return HTTPStatus.OK, {"revision": revision, "figures": self.own_figures(run)}

    def serve_forever(self) -> None:
        self.httpd.serve_forever(poll_interval=0.1)

    def close(self) -> None:
        self.httpd.server_close()
        for server in self._sites.values():
            server.__exit__(None, None, None)
        self._sites.clear()


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        # A browser dropping a clip's request mid-answer is routine; anything else is a bug, printed as usual.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)  # type: ignore[arg-type]


class _ReviewHandler(BaseHTTPRequestHandler):
    server_state: ReviewServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        """Silent: the terminal is the reviewer's."""

    # -- reading ---------------------------------------------------------------------------
    def do_GET(self) -> None:
        self._get(send_body=True)

    def do_HEAD(self) -> None:
        self._get(send_body=False)

    def _get(self, send_body: bool) -> None:
        state = self.server_state
        if not self._right_host():
            self._send(HTTPStatus.MISDIRECTED_REQUEST, "text/plain; charset=utf-8", b"wrong host\n", send_body)
            return
        path = self.path.split("?", 1)[0].split("#", 1)[0]
        if path == "/":
            self._send_html(state.worklist(), None, send_body)
        elif path.startswith("/run/") and (run := state.run(path.removeprefix("/run/"))) is not None:
            self._send_html(state.page(run), state.site_url(run), send_body)
        elif path == "/favicon.ico":
            self._send(HTTPStatus.NO_CONTENT, "image/x-icon", b"", send_body)
        elif path in ASSETS:
            self._send(HTTPStatus.OK, CONTENT_TYPES[Path(path).suffix], ASSETS[path].read_bytes(), send_body)
        elif path.startswith("/media/") and (found := self._media(path)) is not None:
            self._send_media(found, send_body)
        else:
            self._send(HTTPStatus.NOT_FOUND, "text/plain; charset=utf-8", b"not found\n", send_body)

    def _media(self, path: str) -> Path | None:
        key = path.removeprefix("/media/").split(".", 1)[0]
        found = self.server_state.reviewing.media.files.get(key)
        return found if found is not None and found.is_file() else None

    def _send_media(self, found: Path, send_body: bool) -> None:
        """A still or a clip, whole or the one byte range asked for (a clip seeks by ranges)."""
        body = found.read_bytes()
        kind = CONTENT_TYPES.get(found.suffix.lower(), "application/octet-stream")
        asked = _RANGE.fullmatch((self.headers.get("Range") or "").strip())
        if asked is None or (not asked[1] and not asked[2]):
            self._send(HTTPStatus.OK, kind, body, send_body, extra={"Accept-Ranges": "bytes"})
            return
        start, end = (int(asked[1]), int(asked[2] or len(body) - 1)) if asked[1] else \
            (max(0, len(body) - int(asked[2])), len(body) - 1)
        end = min(end, len(body) - 1)
        if start > end:
            self._send(HTTPStatus.REQUESTED_RANGE_NOT_SATISFIABLE, kind, b"", send_body,
                       extra={"Content-Range": f"bytes */{len(body)}"})
            return
        self._send(HTTPStatus.PARTIAL_CONTENT, kind, body[start:end + 1], send_body,
                   extra={"Accept-Ranges": "bytes", "Content-Range": f"bytes {start}-{end}/{len(body)}"})

    # -- saving ----------------------------------------------------------------------------
    def do_POST(self) -> None:
        state = self.server_state
        refusal = self._refusal()
        given = self.headers.get("Content-Length") or ""
        length = int(given) if given.isdigit() else 0
        if refusal is None and not 0 < length <= MAX_SAVE_BYTES:
            refusal = f"a save is 1 byte to {MAX_SAVE_BYTES // 1024} KiB of JSON"
        run = state.run(self.path.removeprefix("/api/save/")) if self.path.startswith("/api/save/") else None
        if refusal is None and run is None:
            refusal = f"no run to save at {self.path}"
        if refusal is not None:
            state.reviewing.refused += 1
            self.close_connection = True
            self._send_json(HTTPStatus.FORBIDDEN, {"errors": [f"refused: {refusal}"]})
            return
        assert run is not None
        try:
            payload = json.loads(self.rfile.read(length))
        except ValueError:
            self._send_json(HTTPStatus.BAD_REQUEST, {"errors": ["a save sends JSON"]})
            return
        status, answer = state.save(run, payload)
        self._send_json(status, answer)

    def _refusal(self) -> str | None:
        """Why this request may not save (None: it may): the host, origin, kind and token a save must have."""
        state = self.server_state
        if not self._right_host():
            return "the request names another host"
        if self.headers.get("Origin") != state.origin:
            return f"a save comes from the review page's origin {state.origin}, not {self.headers.get('Origin')!r}"
        if self.headers.get("Sec-Fetch-Site") not in (None, "same-origin"):
            return "a save comes from the review page itself"
        if (self.headers.get("Content-Type") or "").split(";")[0].strip() != "application/json":
            return "a save is JSON"
        token = self.headers.get(TOKEN_HEADER) or ""
        if not hmac.compare_digest(token.encode(), state.token.encode()):
            return "the session's token is missing or wrong"
        return None

    def _right_host(self) -> bool:
        return self.headers.get("Host") == self.server_state.url.removeprefix("http://").rstrip("/")

    # -- answering -------------------------------------------------------------------------
    def do_PUT(self) -> None:
        self._not_allowed()

    def do_DELETE(self) -> None:
        self._not_allowed()

    def do_OPTIONS(self) -> None:
        self._not_allowed()  # no preflight is ever answered: no other origin may send a save

    def _not_allowed(self) -> None:
        self.server_state.reviewing.refused += 1
        self._send(HTTPStatus.METHOD_NOT_ALLOWED, "text/plain; charset=utf-8", b"not allowed\n", True)

    def _send_html(self, html: str, site: str | None, send_body: bool) -> None:
        self._send(HTTPStatus.OK, "text/html; charset=utf-8", html.encode(), send_body, policy=page_policy(site))

    def _send_json(self, status: HTTPStatus, data: dict[str, Any]) -> None:
        self._send(status, "application/json", json.dumps(data).encode(), True)

    def _send(self, status: HTTPStatus, content_type: str, body: bytes, send_body: bool,
              policy: str | None = None, extra: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Security-Policy", policy or page_policy(None))
        self.send_header("X-Frame-Options", "DENY")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("Cross-Origin-Opener-Policy", "same-origin")
        self.send_header("Cross-Origin-Resource-Policy", "same-origin")
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        if send_body:
            self.wfile.write(body)
