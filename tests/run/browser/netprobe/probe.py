"""Run inside a network namespace the test made (`unshare --net`, as root): listeners on a second,
non-loopback address of that namespace record every connection and datagram, while a page
served from loopback tries every way out to them. Prints what each listener recorded, as JSON.

Usage: python probe.py confined|flags|raw
  confined  the plugin's BrowserSession (Chromium in a namespace of its own)
  flags     the plugin's BrowserSession under --tcab-no-sandbox (flags and routes only)
  raw       plain Playwright Chromium, nothing confining it: the control, it must reach them all
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

TARGET = "192.0.2.2"
"""TEST-NET-1, on this namespace's own link only: it exists nowhere else."""
SOURCE = "192.0.2.3/24"
"""The other end of the link: a non-loopback interface, which WebRTC needs before it gathers."""
TCP = {"fetch": 8001, "websocket": 8002, "iframe": 8003, "popup": 8004, "img": 8005, "eventsource": 8006,
       "turn-tcp": 8007}
UDP = {"stun": 3478, "turn-udp": 3479, "webtransport": 4433}
SETTLE_S = 4.0

PAGE = f"""<!doctype html><meta charset="utf-8"><title>probe</title><body><script>
const t = "{TARGET}";
fetch(`http://${{t}}:{TCP["fetch"]}/`).catch(() => {{}});
try {{ new WebSocket(`ws://${{t}}:{TCP["websocket"]}/`); }} catch (_) {{}}
const frame = document.createElement("iframe"); frame.src = `http://${{t}}:{TCP["iframe"]}/`; document.body.append(frame);
try {{ window.open(`http://${{t}}:{TCP["popup"]}/`); }} catch (_) {{}}
const img = new Image(); img.src = `http://${{t}}:{TCP["img"]}/x.png`;
try {{ new EventSource(`http://${{t}}:{TCP["eventsource"]}/`); }} catch (_) {{}}
try {{
  const pc = new RTCPeerConnection({{ iceServers: [
    {{ urls: `stun:${{t}}:{UDP["stun"]}` }},
    {{ urls: `turn:${{t}}:{UDP["turn-udp"]}?transport=udp`, username: "u", credential: "p" }},
    {{ urls: `turn:${{t}}:{TCP["turn-tcp"]}?transport=tcp`, username: "u", credential: "p" }},
  ] }});
  pc.createDataChannel("d");
  pc.createOffer().then((offer) => pc.setLocalDescription(offer));
}} catch (_) {{}}
try {{ new WebTransport(`https://${{t}}:{UDP["webtransport"]}/`).ready.catch(() => {{}}); }} catch (_) {{}}
</script>"""


def main(mode: str) -> None:
    # A veth pair inside this namespace (it has no link to anywhere else): WebRTC gathers only on
    # a non-loopback interface; its default route, too, leads nowhere but the pair.
    for command in (["ip", "link", "set", "lo", "up"], ["ip", "link", "add", "v0", "type", "veth", "peer", "name", "v1"],
                    ["ip", "link", "set", "v0", "up"], ["ip", "link", "set", "v1", "up"],
                    ["ip", "addr", "add", SOURCE, "dev", "v0"], ["ip", "addr", "add", f"{TARGET}/32", "dev", "v1"],
                    ["ip", "route", "add", "default", "dev", "v0"]):
        subprocess.run(command, check=True)
    hits = {name: 0 for name in [*TCP, *UDP]}
    for name, port in TCP.items():
        listener = socket.create_server((TARGET, port))
        threading.Thread(target=_accept, args=(listener, name, hits), daemon=True).start()
    for name, port in UDP.items():
        receiver = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        receiver.bind((TARGET, port))
        threading.Thread(target=_receive, args=(receiver, name, hits), daemon=True).start()
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "index.html").write_text(PAGE, encoding="utf-8")
        _drive(mode, Path(folder))
    print(json.dumps(hits))


def _accept(listener: socket.socket, name: str, hits: dict[str, int]) -> None:
    while True:
        connection, _ = listener.accept()
        hits[name] += 1
        connection.close()


def _receive(receiver: socket.socket, name: str, hits: dict[str, int]) -> None:
    while True:
        receiver.recv(65536)
        hits[name] += 1


def _drive(mode: str, folder: Path) -> None:
    from pytest_tcab.run.browser.discovery import find_chromium
    from pytest_tcab.run.browser.serve import StaticServer
    from pytest_tcab.run.browser.session import BrowserSession

    chromium = find_chromium(None)
    assert chromium is not None, "no Chromium"
    with StaticServer(folder) as server:
        if mode == "raw":
            from playwright.sync_api import sync_playwright

            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=str(chromium.path),
                                                     args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])
                page = browser.new_page()
                page.goto(server.url)
                time.sleep(SETTLE_S)
                browser.close()
            return
        session = BrowserSession(chromium, confine=mode == "confined")
        try:
            context = session.new_context()
            context.new_page().goto(server.url)
            time.sleep(SETTLE_S)
            context.close()
        finally:
            session.close()


if __name__ == "__main__":
    main(sys.argv[1])
