"""Chromium in a network namespace that has only loopback: a page reaches the servers handed to it
and nothing else, whatever it tries (fetch, WebSocket, navigation, WebRTC over UDP or TCP, QUIC).

Chromium is started through a small launcher script given to Playwright as its executable: it
runs `bwrap --unshare-net`, and inside, `netns_helper.py` starts Chromium and answers requests
for listening sockets made in that namespace. Every static server the session starts is also
served on such a socket at the same port (see `serve.on_start`), so `http://127.0.0.1:PORT/`
means the same server inside and out. Works as root and as an ordinary user wherever bwrap can
make a user namespace (the build sandbox's requirement too).
"""

from __future__ import annotations

import array
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

from pytest_tcab.errors import TcabError

HELPER = Path(__file__).with_name("netns_helper.py")
CONNECT_TIMEOUT_S = 60.0
"""How long Chromium's launcher may take to call back once Playwright has started it."""


NO_SANDBOX_HINT = "or pass --tcab-no-sandbox to keep pages in with Chromium's flags and Playwright's routes only"


class ConfinementUnavailable(TcabError):
    """No network namespace can be made for Chromium here: no bwrap, or bwrap cannot start."""


def probe() -> str:
    """The bwrap binary, once it has shown it can make a network namespace here.

    Raises ConfinementUnavailable saying what failed, for one message per session.
    """
    if not sys.platform.startswith("linux"):
        raise ConfinementUnavailable(f"confining Chromium's network needs Linux namespaces, and this is {sys.platform}; "
                                     f"{NO_SANDBOX_HINT}")
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        raise ConfinementUnavailable("confining Chromium's network needs bubblewrap, and bwrap is not on PATH "
                                     f"(Debian/Ubuntu: apt-get install bubblewrap); {NO_SANDBOX_HINT}")
    try:
        done = subprocess.run([bwrap, "--unshare-net", "--dev-bind", "/", "/", "--", "true"], check=False,
                              stdin=subprocess.DEVNULL, capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ConfinementUnavailable(f"confining Chromium's network: {bwrap} could not run: {exc}; "
                                     f"{NO_SANDBOX_HINT}") from None
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip() or f"exit status {done.returncode}"
        raise ConfinementUnavailable(f"confining Chromium's network: bwrap cannot make a network namespace here: "
                                     f"{said} (unprivileged user namespaces may be restricted: docs/trust.md); "
                                     f"{NO_SANDBOX_HINT}")
    return bwrap


class ConfinedNetwork:
    """The launcher of one confined Chromium and the control channel to its helper.

    Hand `executable` to Playwright's launch, call `connect()` once the browser is up, then
    `listener(port)` for each server the pages must reach.
    """

    def __init__(self, bwrap: str, chromium: Path) -> None:
        self._folder = tempfile.TemporaryDirectory(prefix="tcab-netns-")
        folder = Path(self._folder.name)
        control_path = folder / "control.sock"
        self._control = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._control.bind(str(control_path))
        self._control.listen(1)
        self._control.settimeout(CONNECT_TIMEOUT_S)
        self._channel: socket.socket | None = None
        command = [bwrap, "--unshare-net", "--dev-bind", "/", "/", "--die-with-parent", "--",
                   sys.executable, str(HELPER), str(control_path), str(chromium)]
        self.executable = folder / "chromium"
        self.executable.write_text(f'#!/bin/sh\nexec {shlex.join(command)} "$@"\n', encoding="utf-8")
        self.executable.chmod(0o700)

    def connect(self) -> None:
        """Accept the helper's call (it makes it before starting Chromium)."""
        try:
            self._channel, _ = self._control.accept()
        except OSError as exc:
            raise ConfinementUnavailable(f"Chromium's confined launcher never called back: {exc}") from None
        self._channel.settimeout(CONNECT_TIMEOUT_S)

    def listener(self, port: int) -> socket.socket:
        """A listening socket on 127.0.0.1:`port` inside Chromium's namespace."""
        assert self._channel is not None, "connect() first"
        self._channel.sendall(port.to_bytes(2, "big"))
        answer, ancillary, _, _ = self._channel.recvmsg(1, socket.CMSG_SPACE(array.array("i").itemsize))
        if answer != b"\1" or not ancillary:
            raise ConfinementUnavailable(f"port {port} cannot be opened inside Chromium's network namespace")
        fds = array.array("i")
        fds.frombytes(ancillary[0][2][: fds.itemsize])
        return socket.socket(fileno=fds[0])

    def close(self) -> None:
        for sock in (self._channel, self._control):
            if sock is not None:
                sock.close()
        self._folder.cleanup()
