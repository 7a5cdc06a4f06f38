"""The judge runtime: one Node process per session (per xdist worker), where validation scripts run.

The page is the graded code, so nothing that decides a verdict runs in its realm (DESIGN "Trust
model"): `judge.mjs` runs each script in a worker thread of its own, with the check kit and the
verdict decision, and asks Python for each `api` member that needs the page, one crossing at a
time. This module finds a Node binary, starts the process on first use, speaks its JSON-lines
protocol and ends it with the session; what a crossing does to the page is the caller's `serve`.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import shutil
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from importlib.resources import as_file
from importlib.resources import files
from pathlib import Path
from typing import Any

import pytest

from pytest_tcab.errors import TcabError

NO_NODE = ("validation scripts run in the judge runtime, Node.js, and no Node was found: install Playwright's "
           "Python package (pip install playwright: it ships one at playwright/driver/node), or Debian's "
           "nodejs (apt-get install nodejs), or set TCAB_NODE to a node binary (v18 or later)")
MIN_NODE_MAJOR = 18
"""Module workers, top-level await and Object.hasOwn, which judge.mjs uses."""
START_TIMEOUT_S = 60.0
"""How long Node may take to start and say it is ready (not counted in any script's timeout)."""
_STDERR_KEPT = 8192
"""The tail of Node's stderr kept for the message when the process dies."""
STDERR_DRAIN_TIMEOUT_S = 2.0
"""How long a dead judge's last stderr lines may take to be read (a child of it may hold the pipe)."""


class JudgeUnavailable(TcabError):
    """No Node binary can run the judge: every script's verdict fails with how to install one."""


class JudgeFailed(TcabError):
    """The judge process itself broke (it died, or answered outside its protocol)."""


class JudgeDied(JudgeFailed):
    """The judge process is gone mid-script: the grader's crash, so the script is run once more."""


class Refused(Exception):
    """A crossing the harness declines, with the message the script's call rejects with."""


@dataclass(frozen=True)
class NodeBinary:
    path: Path
    version: str
    source: str
    """``TCAB_NODE``, ``playwright`` or ``system``: shown when the judge cannot start."""


def find_node() -> NodeBinary | None:
    """Node for the judge: TCAB_NODE, the one inside Playwright's package, then Debian's nodejs."""
    candidates: list[tuple[str, str | None]] = [("TCAB_NODE", os.environ.get("TCAB_NODE"))]
    try:
        import playwright

        candidates.append(("playwright", os.path.join(os.path.dirname(playwright.__file__), "driver", "node")))
    except ImportError:
        pass
    candidates += [("system", shutil.which("nodejs")), ("system", shutil.which("node"))]
    for source, value in candidates:
        if not value or not os.access(value, os.X_OK) or not os.path.isfile(value):
            continue
        version = _version(value)
        if version is not None:
            return NodeBinary(Path(value), version, source)
    return None


def _version(binary: str) -> str | None:
    """`v26.13.1`, when `binary` runs and is recent enough for the judge."""
    try:
        done = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=30, check=True)
    except (OSError, subprocess.SubprocessError):
        return None
    version = done.stdout.strip()
    major = version.lstrip("v").split(".", 1)[0]
    return version if major.isdigit() and int(major) >= MIN_NODE_MAJOR else None


Serve = Callable[[str, list[Any]], Any]
"""Does one crossing (`member`, JSON args) and returns its JSON-able answer, or raises Refused."""


class JudgeRuntime:
    """The session's Node process, started on the first run; `close` ends it (and its workers)."""

    def __init__(self, node: NodeBinary | None = None) -> None:
        self._node = node
        self._process: subprocess.Popen[bytes] | None = None
        self._buffer = b""
        self._stderr = bytearray()
        self._drainer: threading.Thread | None = None
        self._runs = 0
        self._lock = threading.Lock()
        self.restarts = 0
        """How often a script was run again because the judge died under it (the summary says so)."""

    @property
    def node(self) -> NodeBinary:
        if self._node is None:
            self._node = find_node()
            if self._node is None:
                raise JudgeUnavailable(NO_NODE)
        return self._node

    def run(self, spec: dict[str, Any], serve: Serve, timeout_s: float,
            idle: Callable[[], None] | None = None) -> dict[str, Any] | None:
        """Run one script (`spec`, judge.mjs's `run` message) to its outcome; None past `timeout_s`.

        Each `cross` the script makes is answered with `serve`'s value; `idle` is called while
        the script computes or waits, so the browser's events (a clip's frames) keep flowing.
        Raises JudgeUnavailable or JudgeFailed; an exception from `serve` other than Refused
        cancels the script and propagates.
        """
        with self._lock:
            self._runs += 1
            run_id = self._runs
            self.start()
            self._send({**spec, "type": "run", "run": run_id})
            deadline = _now() + timeout_s
            try:
                while True:
                    message = self._next(deadline, idle)
                    if message is None:
                        self._send({"type": "cancel", "run": run_id})
                        return None
                    if message.get("run") != run_id:
                        continue  # the late answer of a run cancelled before
                    if message.get("type") == "done":
                        result = message.get("result")
                        if not isinstance(result, dict):
                            raise JudgeFailed(f"the judge answered a run with {result!r}")
                        return result
                    self._answer(run_id, message, serve)
            except BaseException:
                if self._process is not None and self._process.poll() is None:
                    self._send({"type": "cancel", "run": run_id})
                elif self._process is not None:
                    self._died()
                raise

    def _answer(self, run_id: int, message: dict[str, Any], serve: Serve) -> None:
        member, args = message.get("member"), message.get("args")
        if not isinstance(member, str) or not isinstance(args, list):
            raise JudgeFailed(f"the judge sent a malformed crossing: {message!r}"[:500])
        try:
            answer: dict[str, Any] = {"value": serve(member, args)}
        except Refused as refused:
            answer = {"error": str(refused)}
        self._send({"type": "answer", "run": run_id, "seq": message.get("seq"), **answer})

    def start(self) -> None:
        """Start Node unless it runs (on the first run, or after it died), and wait until it is ready."""
        if self._process is not None and self._process.poll() is not None:
            self._died()
        if self._process is None:
            with as_file(files("pytest_tcab.run.judge").joinpath("judge.mjs")) as script:
                self._process = subprocess.Popen(
                    [str(self.node.path), "--enable-source-maps", "--stack-trace-limit=50", str(script)],
                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0,
                    env={**os.environ, "NODE_OPTIONS": ""},
                )
            self._buffer = b""
            self._stderr = bytearray()
            self._drainer = threading.Thread(target=_drain, args=(self._process, self._stderr), daemon=True,
                                             name="tcab-judge-stderr")
            self._drainer.start()
            ready = self._next(_now() + START_TIMEOUT_S, None)
            if ready is None or ready.get("type") != "ready":
                raise JudgeFailed(f"the judge runtime did not start within {START_TIMEOUT_S:g} s: {self._died()}")

    def warm(self) -> None:
        """Start Node in a thread of its own (while a run builds), so the run's first script finds
        it ready. A failure to start is left for that script's own `start` to tell."""
        def start() -> None:
            with self._lock, contextlib.suppress(JudgeUnavailable, JudgeFailed, OSError):
                self.start()

        threading.Thread(target=start, daemon=True, name="tcab-judge-warm").start()

    def _send(self, message: dict[str, Any]) -> None:
        process = self._process
        if process is None or process.stdin is None:
            raise JudgeFailed("the judge runtime is not running")
        try:
            process.stdin.write(json.dumps(message, separators=(",", ":")).encode() + b"\n")
        except (BrokenPipeError, OSError):
            raise JudgeDied(self._died()) from None

    def _next(self, deadline: float, idle: Callable[[], None] | None) -> dict[str, Any] | None:
        """The judge's next message, or None once `deadline` passes."""
        process = self._process
        assert process is not None and process.stdout is not None
        descriptor = process.stdout.fileno()
        while b"\n" not in self._buffer:
            left = deadline - _now()
            if left <= 0:
                return None
            ready, _, _ = select.select([descriptor], [], [], min(left, 0.02 if idle else left))
            if not ready:
                if idle is not None:
                    idle()
                continue
            chunk = os.read(descriptor, 1 << 16)
            if not chunk:
                raise JudgeDied(self._died())
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        try:
            message = json.loads(line)
        except ValueError:
            raise JudgeFailed(f"the judge wrote a line outside its protocol: {line[:200]!r}") from None
        if not isinstance(message, dict):
            raise JudgeFailed(f"the judge wrote a line outside its protocol: {line[:200]!r}")
        return message

    def _died(self) -> str:
        """Why the process is gone (its status and the tail of its stderr), once it is reaped."""
        process, self._process = self._process, None
        code = None
        if process is not None:
            process.kill()
            code = process.wait()
            # What it wrote last is still in the pipe until the drainer reads to its end.
            if self._drainer is not None:
                self._drainer.join(timeout=STDERR_DRAIN_TIMEOUT_S)
            _close_pipes(process)
        tail = self._stderr.decode(errors="replace").strip()
        return f"the judge runtime ({self.node.path}) exited with status {code}" + (f":\n{tail}" if tail else "")

    def close(self) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        if process.stdin is not None:
            process.stdin.close()  # judge.mjs exits when its stdin closes
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        _close_pipes(process)


def _drain(process: subprocess.Popen[bytes], kept: bytearray) -> None:
    """Read Node's stderr to its end, keeping its tail in `kept` (that process's own buffer)."""
    assert process.stderr is not None
    try:
        while chunk := os.read(process.stderr.fileno(), 4096):
            kept += chunk
            del kept[:-_STDERR_KEPT]
    except OSError:  # closed under it: the process is gone and its pipes with it
        return


def _close_pipes(process: subprocess.Popen[bytes]) -> None:
    for stream in (process.stdin, process.stdout, process.stderr):
        if stream is not None:
            try:
                stream.close()
            except OSError:
                pass


def _now() -> float:
    return time.monotonic()


_judge_key = pytest.StashKey[JudgeRuntime]()


def session_judge(config: pytest.Config) -> JudgeRuntime:
    """The session's judge runtime (one per xdist worker), ended with the session."""
    if _judge_key not in config.stash:
        judge = config.stash[_judge_key] = JudgeRuntime()
        config.add_cleanup(judge.close)
    return config.stash[_judge_key]
