"""Chromium confined as build steps are: a network namespace that has only loopback, so a page
reaches the servers handed to it and nothing else, whatever it tries (fetch, WebSocket,
navigation, WebRTC over UDP or TCP, QUIC), and the build steps' mount view, so no process of
the browser can read the suite, the results folder, the checkout or the caller's home.

Chromium is started through a small launcher script given to Playwright as its executable: it
runs `bwrap --unshare-all` with the sandbox's `system_view`, and inside, `netns_helper.py`
starts Chromium and answers requests for listening sockets made in that namespace. Every static
server the session starts is also served on such a socket at the same port (see
`serve.on_start`), so `http://127.0.0.1:PORT/` means the same server inside and out. Works as root and as an ordinary user wherever bwrap can
make a user namespace (the build sandbox's requirement too).
"""

from __future__ import annotations

import array
import os
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

from pytest_tcab.errors import TcabError
from pytest_tcab.run.sandbox.sandbox import system_view
from pytest_tcab.run.sandbox.sandbox import under_system
from pytest_tcab.run.sandbox.sandbox import visible_path

HELPER = Path(__file__).with_name("netns_helper.py")
CONNECT_TIMEOUT_S = 60.0
"""How long Chromium's launcher may take to call back once Playwright has started it."""


NO_SANDBOX_HINT = "or pass --tcab-no-sandbox to keep pages in with Chromium's flags and Playwright's routes only"


class ConfinementUnavailable(TcabError):
    """No network namespace can be made for Chromium here: no bwrap, or bwrap cannot start."""


PASSED_ENVIRONMENT = ("LANG", "LC_ALL", "LANGUAGE", "TZ", "DISPLAY", "WAYLAND_DISPLAY", "XDG_RUNTIME_DIR", "XAUTHORITY")
"""What Chromium keeps of the reporter's environment: its locale and, when headed, its display."""
FONT_CACHE = "/var/cache/fontconfig"
"""Shown read-only where it exists: without it every launch scans the fonts again."""
INNER_HOME = "/tmp/home"


def probe() -> str:
    """The bwrap binary, once it has shown it can make Chromium's namespaces and mount view here.

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
        done = subprocess.run([bwrap, "--unshare-all", *system_view(()), "--", "true"], check=False,
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
    `listener(port)` for each server the pages must reach. Chromium sees the build steps' mount
    view (`hidden` covered where it lies under the system folders) plus, writable, `profiles`:
    the folder Playwright makes its profile and artifact folders in (the driver's `TMPDIR`).
    """

    def __init__(self, bwrap: str, chromium: Path, profiles: Path, hidden: tuple[Path, ...] = ()) -> None:
        self._folder = tempfile.TemporaryDirectory(prefix="tcab-netns-")
        folder = Path(self._folder.name)
        control_path = folder / "control.sock"
        self._control = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._control.bind(str(control_path))
        self._control.listen(1)
        self._control.settimeout(CONNECT_TIMEOUT_S)
        self._channel: socket.socket | None = None
        helper = folder / HELPER.name  # the checkout holding the package may be out of sight
        helper.write_bytes(HELPER.read_bytes())
        python, python_view = _interpreter()
        view = [*system_view(hidden), "--ro-bind-try", FONT_CACHE, FONT_CACHE, *python_view,
                *_shown(Path(os.path.realpath(chromium)).parent), "--bind", str(folder), str(folder),
                "--bind", str(profiles), str(profiles), *_display(), "--dir", INNER_HOME]
        command = [bwrap, "--unshare-all", "--die-with-parent", *view, "--clearenv", *_environment(), "--",
                   python, "-I", "-S", str(helper), str(control_path), str(chromium)]
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


def _interpreter() -> tuple[str, list[str]]:
    """A Python for the helper (standard library only) and what must be shown for it to run:
    the system's when there is one, else this one's installation, read-only."""
    system = shutil.which("python3", path=visible_path(os.environ.get("PATH", "")))
    if system is not None:
        return system, []
    return sys.executable, _shown(Path(sys.base_prefix))


def _shown(folder: Path) -> list[str]:
    """Show `folder` read-only unless the system view holds it already (Playwright's own Chromium
    lives under the caller's home)."""
    return [] if under_system(folder) else ["--ro-bind", str(folder), str(folder)]


def _display() -> list[str]:
    """The X or Wayland socket of a headed browser, and its X authority file."""
    shown: list[str] = []
    if os.environ.get("DISPLAY"):
        shown += ["--ro-bind-try", "/tmp/.X11-unix", "/tmp/.X11-unix"]
    authority = os.environ.get("XAUTHORITY")
    if authority:
        shown += ["--ro-bind-try", authority, authority]
    runtime, wayland = os.environ.get("XDG_RUNTIME_DIR"), os.environ.get("WAYLAND_DISPLAY")
    if runtime and wayland:
        socket_path = os.path.join(runtime, wayland)
        shown += ["--ro-bind-try", socket_path, socket_path]
    return shown


def _environment() -> list[str]:
    kept = {name: os.environ[name] for name in PASSED_ENVIRONMENT if os.environ.get(name)}
    inner = {**kept, "PATH": visible_path(os.environ.get("PATH", "")), "HOME": INNER_HOME, "TMPDIR": "/tmp"}
    return [arg for name, value in inner.items() for arg in ("--setenv", name, value)]
