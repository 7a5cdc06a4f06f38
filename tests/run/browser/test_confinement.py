"""Pages reach nothing but the loopback server, measured against real listeners.

Each probe runs in a network namespace this test makes (`unshare --net`, as root): a veth pair
inside it carries TEST-NET-1 addresses that exist nowhere else, so nothing leaves the machine.
Listeners there count every connection and datagram while a page tries every way out (fetch,
WebSocket, iframe, window.open, img, EventSource, WebRTC STUN/TURN over UDP and TCP,
WebTransport). Plain Chromium reaches every one of them: the control that shows the probe can
fail. The plugin's browser reaches none, confined and under --tcab-no-sandbox alike.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pytest_tcab.run.browser.discovery import NO_BROWSER_REASON
from pytest_tcab.run.browser.discovery import find_chromium

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(find_chromium(None) is None, reason=NO_BROWSER_REASON),
    pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("unshare") or not shutil.which("ip"),
                       reason="the probe's own network namespace needs root, unshare and ip (util-linux, iproute2)"),
]

PROBE = Path(__file__).parent / "netprobe" / "probe.py"
CHANNELS = ("fetch", "websocket", "iframe", "popup", "img", "eventsource", "turn-tcp", "stun", "turn-udp",
            "webtransport")


def _probe(mode: str) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(Path(__file__).parents[3]),
                                                                      os.environ.get("PYTHONPATH")]))}
    done = subprocess.run(["unshare", "--net", sys.executable, str(PROBE), mode], check=False, capture_output=True,
                          text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    hits: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return hits


def test_plain_chromium_reaches_every_listener() -> None:
    # The control: without the plugin's guards each way out reaches its listener.
    hits = _probe("raw")
    assert sorted(name for name in CHANNELS if hits[name] == 0) == []


@pytest.mark.parametrize("mode", ["confined", "flags"])
def test_the_plugins_browser_reaches_no_listener(mode: str) -> None:
    hits = _probe(mode)
    assert {name: hits[name] for name in CHANNELS} == dict.fromkeys(CHANNELS, 0)
