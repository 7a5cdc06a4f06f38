"""The confined network's parts that need no browser: the probe's refusal, and a server offered
to an observer that serves it on a second socket."""

from __future__ import annotations

import socket
import urllib.request
from pathlib import Path

import pytest

from pytest_tcab.run.browser import netns
from pytest_tcab.run.browser.serve import StaticServer
from pytest_tcab.run.browser.serve import on_start


def test_no_bwrap_is_one_clear_reason(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(netns.ConfinementUnavailable, match="needs bubblewrap, and bwrap is not on PATH"):
        netns.probe()


def test_every_server_is_offered_and_served_on_the_socket_it_is_given(tmp_path: Path) -> None:
    (tmp_path / "index.html").write_text("served", encoding="utf-8")
    offered: list[StaticServer] = []
    stop = on_start(offered.append)  # servers already running (another test's) are offered too
    try:
        with StaticServer(tmp_path) as server:
            assert offered[-1] is server
            extra = socket.create_server(("127.0.0.1", 0))
            server.serve_also(extra)
            second = f"http://127.0.0.1:{extra.getsockname()[1]}/index.html"
            with urllib.request.urlopen(second, timeout=10) as response:
                assert response.read() == b"served"
    finally:
        stop()
    with StaticServer(tmp_path) as later:
        assert later not in offered  # no longer observed
