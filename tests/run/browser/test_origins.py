"""A build's page reaches its own origin only: the plugin's own pages (mockups, a particle player,
a replay) are on origins of their own, which a page of the build cannot load from by any way a
page has, even knowing the URL. Measured at the server: every request it answers is counted."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_tcab.run.browser import serve
from pytest_tcab.run.browser.serve import PageServer
from pytest_tcab.run.browser.serve import StaticServer
from pytest_tcab.run.browser.session import BrowserSession

pytestmark = pytest.mark.browser

# Each way a page loads something from a URL it knows; `probe(url)` resolves once they all ran.
PROBE_PAGE = """<!doctype html><meta charset="utf-8"><body><script>
window.probe = async (url) => {
  const settle = (element, event = "load") => new Promise((done) => {
    element.addEventListener(event, done); element.addEventListener("error", done); setTimeout(done, 1500);
  });
  const tries = [
    fetch(url, { mode: "no-cors" }).catch(() => null),
    fetch(url).catch(() => null),
    new Promise((done) => { const x = new XMLHttpRequest(); x.onloadend = done; x.open("GET", url); x.send(); }),
    (() => { const f = document.createElement("iframe"); f.src = url; document.body.append(f); return settle(f); })(),
    (() => { const i = new Image(); i.src = url + "?img"; return settle(i); })(),
    (() => { const s = document.createElement("script"); s.src = url + "?script"; document.body.append(s); return settle(s); })(),
    (() => { const l = document.createElement("link"); l.rel = "stylesheet"; l.href = url + "?css"; document.head.append(l); return settle(l); })(),
    (() => { const l = document.createElement("link"); l.rel = "prefetch"; l.href = url + "?prefetch"; document.head.append(l); return settle(l); })(),
    new Promise((done) => { try { navigator.sendBeacon(url + "?beacon", "x"); } catch (_) {} setTimeout(done, 300); }),
    new Promise((done) => { const e = new EventSource(url + "?events"); e.onerror = () => { e.close(); done(); }; setTimeout(done, 1500); }),
    new Promise((done) => { try { const w = new WebSocket(url.replace("http", "ws") + "?ws"); w.onerror = done; w.onclose = done; } catch (_) { done(); } setTimeout(done, 1500); }),
    new Promise((done) => {
      const code = `fetch(${JSON.stringify(url + "?worker")}).catch(() => null).then(() => postMessage(1))`;
      const worker = new Worker(URL.createObjectURL(new Blob([code], { type: "text/javascript" })));
      worker.onmessage = done; worker.onerror = done; setTimeout(done, 1500);
    }),
    new Promise((done) => { window.open(url + "?popup"); setTimeout(done, 300); }),  // left open: the item closes it
  ];
  await Promise.all(tries);
  return true;
};
</script>"""


@pytest.fixture
def hits(monkeypatch: pytest.MonkeyPatch) -> dict[int, list[str]]:
    """The requests every server answers from now on, by port."""
    answered: dict[int, list[str]] = {}
    original = serve._Handler.log_request

    def log_request(self: serve._Handler, code: int | str = "-", size: int | str = "-") -> None:
        answered.setdefault(self.server.server_address[1], []).append(self.path)
        original(self, code, size)

    monkeypatch.setattr(serve._Handler, "log_request", log_request)
    return answered


@pytest.fixture
def servers(tmp_path: Path) -> Iterator[tuple[StaticServer, PageServer]]:
    build = tmp_path / "dist"
    build.mkdir()
    (build / "index.html").write_text(PROBE_PAGE, encoding="utf-8")
    mockups = tmp_path / "reference"
    mockups.mkdir()
    (mockups / "title.html").write_text("<p>the title view, as the suite author drew it</p>", encoding="utf-8")
    with StaticServer(build) as built, PageServer({"mockup": mockups}) as pages:
        yield built, pages


EVERY_WAY = {"plain", "img", "script", "css", "prefetch", "beacon", "events", "ws", "worker", "popup"}
"""The ways `probe` asks for the URL, as the query each adds (fetch, XHR and the frame add none)."""


def _probe_from(session: BrowserSession, origin: str | None, page_url: str, pages: PageServer,
                hits: dict[int, list[str]], grace_s: float) -> set[str]:
    """The ways a page in a context of `origin` reached the plugin's page server, waiting up to
    `grace_s` (within the item, its pages still open) for requests still on their way."""
    with session.item("probe", lambda: None):
        page = session.page(origin=origin)
        page.goto(page_url)
        assert page.evaluate("(url) => window.probe(url)", pages.page_url("mockup", "title.html")) is True
        deadline = time.monotonic() + grace_s
        while True:
            reached = {path.rsplit("?", 1)[-1] if "?" in path else "plain" for path in hits.get(pages.port, [])}
            if reached == EVERY_WAY or time.monotonic() > deadline:
                return reached
            page.wait_for_timeout(100)


def test_a_build_page_cannot_load_the_plugins_pages(session: BrowserSession, servers: tuple[StaticServer, PageServer],
                                                     hits: dict[int, list[str]]) -> None:
    built, pages = servers
    assert _probe_from(session, built.url, built.url, pages, hits, grace_s=3.0) == set()
    assert hits.get(built.port, [])  # the build's own page loaded


def test_without_the_guard_the_same_probe_reaches_them(session: BrowserSession,
                                                       servers: tuple[StaticServer, PageServer],
                                                       hits: dict[int, list[str]]) -> None:
    # The control: a context that allows every loopback origin lets the probe's requests through.
    built, pages = servers
    reached = _probe_from(session, None, built.url, pages, hits, grace_s=30.0)
    assert reached == EVERY_WAY, json.dumps(sorted(reached))


def test_a_plugin_page_renders_in_its_own_context(session: BrowserSession, servers: tuple[StaticServer, PageServer]) -> None:
    built, pages = servers
    with session.item("mockup", lambda: None):
        mockup = session.page(origin=pages.url)
        mockup.goto(pages.page_url("mockup", "title.html"))
        assert mockup.inner_text("p") == "the title view, as the suite author drew it"
        build = session.page(origin=built.url)
        assert build.context is not mockup.context
