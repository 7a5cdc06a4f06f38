"""serve: real sockets and raw requests, so that no client normalises a hostile path first."""

from __future__ import annotations

import http.client
import socket
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_tcab.run.browser.serve import PageServer
from pytest_tcab.run.browser.serve import StaticServer


def _port(server: StaticServer) -> int:
    return int(server.url.rsplit(":", 1)[1].rstrip("/"))


def _fetch(
    server: StaticServer, path: str, method: str = "GET"
) -> tuple[http.client.HTTPResponse, bytes]:
    """Send ``path`` byte for byte: http.client neither resolves ``..`` nor decodes escapes."""
    conn = http.client.HTTPConnection("127.0.0.1", _port(server), timeout=5)
    try:
        conn.request(method, path)
        response = conn.getresponse()
        return response, response.read()
    finally:
        conn.close()


def _get(server: StaticServer, path: str) -> tuple[int, str | None, bytes]:
    response, body = _fetch(server, path)
    return response.status, response.getheader("Content-Type"), body


@pytest.fixture
def site(tmp_path: Path) -> Path:
    root = tmp_path / "dist"
    (root / "assets").mkdir(parents=True)
    (root / "index.html").write_text("<p>héllo</p>", encoding="utf-8")
    (root / "main.mjs").write_text("export default 1;")
    (root / "app.js").write_text("console.log(1);")
    (root / "game.wasm").write_bytes(b"\0asm\1\0\0\0")
    (root / "assets" / "sprite.png").write_bytes(b"\x89PNG")
    (root / "assets" / "data.json").write_text("{}")
    (root / "assets" / "clip.webm").write_bytes(b"webm")
    (root / "level 1.txt").write_text("spaced")
    (root / "levels").mkdir()
    (root / "levels" / "index.html").write_text("level index")
    (root / "empty").mkdir()
    (root / "__tcab__").mkdir()
    (root / "__tcab__" / "driver.mjs").write_text("produced tree, must be shadowed")
    (root / "link.png").symlink_to("assets/sprite.png")
    # Escapes: a file and a folder outside the root, by symlink.
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("secret")
    (root / "passwd").symlink_to("/etc/passwd")
    (root / "secret.txt").symlink_to(outside / "secret.txt")
    (root / "out").symlink_to(outside)
    (root / "etc").symlink_to("/etc")
    return root


@pytest.fixture
def reporter(tmp_path: Path) -> Path:
    folder = tmp_path / "reporter"
    folder.mkdir()
    (folder / "driver.mjs").write_text("export default () => 'reporter';")
    return folder


@pytest.fixture
def server(site: Path, reporter: Path) -> Iterator[StaticServer]:
    with StaticServer(site, {"/__tcab__/": reporter}) as running:
        yield running


def test_serves_files_with_types_and_no_store(server: StaticServer) -> None:
    status, ctype, body = _get(server, "/")
    assert (status, ctype) == (200, "text/html; charset=utf-8")
    assert body.decode("utf-8") == "<p>héllo</p>"
    with urllib.request.urlopen(server.url + "assets/data.json", timeout=5) as response:
        assert response.headers["Cache-Control"] == "no-store"
        assert response.headers["Content-Length"] == "2"
        assert response.headers["Content-Type"] == "application/json"


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/main.mjs", "text/javascript; charset=utf-8"),
        ("/app.js", "text/javascript; charset=utf-8"),
        ("/game.wasm", "application/wasm"),
        ("/assets/sprite.png", "image/png"),
        ("/assets/clip.webm", "video/webm"),
        ("/link.png", "image/png"),
    ],
)
def test_content_types(server: StaticServer, path: str, expected: str) -> None:
    status, ctype, _ = _get(server, path)
    assert (status, ctype) == (200, expected)


def test_wasm_bytes_are_served_exactly(server: StaticServer) -> None:
    assert _get(server, "/game.wasm")[2] == b"\0asm\1\0\0\0"


def test_percent_encoded_names_and_queries(server: StaticServer) -> None:
    assert _get(server, "/level%201.txt")[2] == b"spaced"
    assert _get(server, "/app.js?v=3")[0] == 200
    assert server.url_for("/", "level 1.txt").endswith("/level%201.txt")


def test_mount_shadows_the_produced_tree(server: StaticServer) -> None:
    status, ctype, body = _get(server, "/__tcab__/driver.mjs")
    assert (status, ctype) == (200, "text/javascript; charset=utf-8")
    assert body == b"export default () => 'reporter';"
    with urllib.request.urlopen(server.url_for("/__tcab__/", "driver.mjs"), timeout=5) as r:
        assert r.read() == body


def test_directories_serve_index_or_404_never_a_listing(server: StaticServer) -> None:
    assert _get(server, "/levels/")[2] == b"level index"
    response, _ = _fetch(server, "/levels")
    assert response.status == 301
    assert response.getheader("Location") == "/levels/"
    assert _get(server, "/empty/")[0] == 404
    assert _get(server, "/assets/")[0] == 404


def test_missing_files_are_404(server: StaticServer) -> None:
    assert _get(server, "/nope.js")[0] == 404
    assert _get(server, "/__tcab__/nope.mjs")[0] == 404


def test_head_has_headers_and_no_body(server: StaticServer) -> None:
    response, body = _fetch(server, "/app.js", method="HEAD")
    assert response.status == 200
    assert response.getheader("Content-Length") == "15"
    assert body == b""


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE"])
def test_only_get_and_head(server: StaticServer, method: str) -> None:
    assert _fetch(server, "/index.html", method=method)[0].status == 501


@pytest.mark.parametrize(
    "path",
    [
        "/../etc/passwd",
        "/../../../../etc/passwd",
        "/%2e%2e/%2e%2e/etc/passwd",
        "/%2E%2E/%2E%2E/etc/passwd",
        "/..%2f..%2fetc/passwd",
        "/assets/..%2F..%2F..%2Fetc/passwd",
        "/assets/../../outside/secret.txt",
        "/..\\..\\etc\\passwd",
        "/%5c..%5c..%5cetc/passwd",
        "/index.html%00.png",
        "//etc/passwd",
        "/%2fetc/passwd",
        "http://127.0.0.1/etc/passwd",
        "/passwd",
        "/secret.txt",
        "/out/secret.txt",
        "/etc/passwd",
        "/__tcab__/../passwd",
        "/__tcab__/%2e%2e/index.html",
        "/%ff%fe",
    ],
)
def test_nothing_outside_the_served_folders(server: StaticServer, path: str) -> None:
    # Refused as a missing file is, to the byte: a page learns nothing from which paths were refused.
    assert _get(server, path) == _get(server, "/no-such-file")
    status, _, body = _get(server, path)
    assert status == 404
    assert b"secret" not in body
    assert b"root:" not in body


def test_symlink_inside_the_root_is_served(server: StaticServer) -> None:
    assert _get(server, "/link.png")[2] == b"\x89PNG"


def test_binds_loopback_only(server: StaticServer) -> None:
    assert server.url.startswith("http://127.0.0.1:")
    port = _port(server)
    # Bound to 127.0.0.1 exactly, not 0.0.0.0: another loopback address is already refused.
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.2", port), timeout=5).close()


def test_port_is_closed_after_exit(site: Path) -> None:
    with StaticServer(site) as running:
        port = _port(running)
        assert _get(running, "/app.js")[0] == 200
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=5).close()
    with pytest.raises(RuntimeError, match="not running"):
        running.url_for("/", "app.js")


def test_no_request_log_on_stderr(server: StaticServer, capfd: pytest.CaptureFixture[str]) -> None:
    _get(server, "/")
    _get(server, "/nope")
    _get(server, "/../etc/passwd")
    assert capfd.readouterr().err == ""


def test_bad_configuration_is_refused(site: Path, reporter: Path) -> None:
    with pytest.raises(ValueError, match="mount prefix"):
        StaticServer(site, {"__tcab__": reporter})
    with pytest.raises(ValueError, match="mount prefix"):
        StaticServer(site, {"/": reporter})
    with pytest.raises(ValueError, match="mount prefix"):
        StaticServer(site, {"/a/../": reporter})
    with pytest.raises(NotADirectoryError):
        StaticServer(site / "index.html")
    with StaticServer(site) as running, pytest.raises(ValueError, match="nothing is served"):
        running.url_for("/__tcab__/", "driver.mjs")


def test_a_page_server_serves_its_folders_under_its_secret_prefix_only(site: Path, reporter: Path) -> None:
    with PageServer({"player": site, "mockup": reporter}) as pages, PageServer({"player": site}) as other:
        url = pages.page_url("mockup", "driver.mjs")
        with urllib.request.urlopen(url, timeout=5) as response:
            assert response.read() == b"export default () => 'reporter';"
        assert _get(pages, urllib.parse.urlsplit(pages.page_url("player", "index.html")).path)[0] == 200
        secret = urllib.parse.urlsplit(url).path.split("/")[1]
        assert len(secret) >= 24 and secret not in other.page_url("player")  # drawn per server
        missing = _get(pages, "/no-such-file")
        for guess in ["/", "/index.html", "/mockup/driver.mjs", "/player/index.html", "/__tcab__/driver.mjs",
                      f"/{secret}/", f"/{secret}/driver.mjs", f"/{secret}/nope/index.html", f"/{secret[:-1]}/mockup/driver.mjs"]:
            assert _get(pages, guess) == missing, guess
        assert missing[0] == 404
