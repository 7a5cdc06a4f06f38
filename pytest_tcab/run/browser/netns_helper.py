"""Runs inside Chromium's network namespace (started by bwrap): starts Chromium, then hands out
listening sockets made in that namespace, one per port asked for.

A socket keeps the namespace it was made in, so the reporter serves a page from its own process
on a socket that exists only where Chromium is: the page reaches that server and nothing else.
Playwright talks to Chromium over fds 3 and 4 (`--remote-debugging-pipe`), passed through.

Standalone on purpose (run by path, standard library only): it starts before anything else.
Usage: python netns_helper.py CONTROL_SOCKET CHROMIUM [ARGS...]
"""

from __future__ import annotations

import array
import socket
import subprocess
import sys
import threading

PLAYWRIGHT_PIPE_FDS = (3, 4)


def main(control_path: str, chromium: list[str]) -> int:
    control = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    control.connect(control_path)
    browser = subprocess.Popen(chromium, pass_fds=PLAYWRIGHT_PIPE_FDS)
    threading.Thread(target=_serve, args=(control,), daemon=True).start()
    return browser.wait()


def _serve(control: socket.socket) -> None:
    """Each request is a port (2 bytes, big-endian); each answer one byte (1 = ok) and the socket."""
    while len(request := control.recv(2, socket.MSG_WAITALL)) == 2:
        port = int.from_bytes(request, "big")
        try:
            listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            listener.bind(("127.0.0.1", port))
            listener.listen(64)
        except OSError:
            control.send(b"\0")
            continue
        control.sendmsg([b"\1"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [listener.fileno()]))])
        listener.close()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2:]))
