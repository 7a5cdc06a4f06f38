"""VS Code's side of its pytest adapter protocol, as the Python extension drives it.

microsoft/vscode-python runs discovery as `python -m pytest -p vscode_pytest --collect-only
ARGS`, and a run as `python python_files/vscode_pytest/run_pytest_script.py ARGS --rootdir=CWD`
with the selected ids in the file `RUN_TEST_IDS_PIPE` names (ARGS are `python.testing.pytestArgs`,
positionals removed for a run). The adapter answers on the FIFO `TEST_RUN_PIPE` names, which
VS Code makes (`mkfifo`) and opens non-blocking before it starts pytest, in JSON-RPC messages
framed by `content-length` headers: one discovery payload (the tree, each test with its `path`,
`lineno` and `runID`), or one execution payload per outcome.

`ADAPTER` is the folder on `PYTHONPATH` that holds `vscode_pytest`: the extension's own
`python_files` when `TCAB_VSCODE_PYTHON_FILES` names one (it is not published on PyPI), else
this folder's `adapter/`, which builds ids by the adapter's rule.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

RULE_ADAPTER = Path(__file__).resolve().parent / "adapter"
REAL_ADAPTER_VARIABLE = "TCAB_VSCODE_PYTHON_FILES"
NOT_ON_PYPI = ("microsoft/vscode-python's pytest adapter (python_files/vscode_pytest) is not published on PyPI: "
               "it ships inside the VS Code Python extension, which CI does not install; set "
               f"{REAL_ADAPTER_VARIABLE}=<extension>/python_files to run against it "
               "(the rule-based adapter in tests/ide/adapter runs meanwhile)")


def real_adapter() -> Path | None:
    """The extension's `python_files` folder, when `TCAB_VSCODE_PYTHON_FILES` names one."""
    given = os.environ.get(REAL_ADAPTER_VARIABLE)
    if given and (Path(given) / "vscode_pytest" / "__init__.py").is_file():
        return Path(given)
    return None


# -- what VS Code does to the settings' arguments ------------------------------------------------

# `OptionsWithArguments` of src/client/testing/testController/pytest/arguments.ts (a subset: the
# options whose next token VS Code knows to be their value).
OPTIONS_WITH_ARGUMENTS = frozenset({
    "-c", "-k", "-m", "-o", "-p", "-r", "-W", "-n", "--assert", "--basetemp", "--capture", "--color",
    "--confcutdir", "--deselect", "--dist", "--durations", "--ignore", "--ignore-glob", "--import-mode",
    "--junit-xml", "--maxfail", "--override-ini", "--rootdir", "--tb", "--verbosity",
})
REMOVED_FOR_A_RUN = frozenset({"--lf", "--last-failed", "--ff", "--failed-first", "--nf", "--new-first"})


def run_arguments(args: list[str], cwd: Path) -> list[str]:
    """`removePositionalFoldersAndFiles` then `--rootdir=CWD`: what a run passes of `pytestArgs`.

    A token that does not start with `-`, has no `=` and follows no option VS Code knows takes a
    value is a positional (a test folder or file) and is dropped: `["--tcab-suite", "S"]` loses `S`.
    """
    kept: list[str] = []
    value_of_known_option = False
    for arg in args:
        if value_of_known_option:
            kept.append(arg)
            value_of_known_option = False
        elif arg in OPTIONS_WITH_ARGUMENTS:
            kept.append(arg)
            value_of_known_option = True
        elif arg.startswith("-") or "=" in arg:
            kept.append(arg)
    kept = [arg for arg in kept if arg not in REMOVED_FOR_A_RUN]
    if not any(arg == "--rootdir" or arg.startswith("--rootdir=") for arg in kept):
        kept.append(f"--rootdir={cwd}")
    return kept


# -- the pipe ------------------------------------------------------------------------------------

def messages(data: bytes) -> Iterator[dict[str, Any]]:
    """Each JSON-RPC message's params, from the `content-length` framed stream."""
    while data:
        header, separator, rest = data.partition(b"\r\n\r\n")
        assert separator, f"a frame without its blank line: {data[:200]!r}"
        lengths = [line.split(b":", 1)[1] for line in header.split(b"\r\n")
                   if line.lower().startswith(b"content-length:")]
        assert lengths, f"a frame without content-length: {header!r}"
        length = int(lengths[0])
        body, data = rest[:length], rest[length:]
        assert len(body) == length, "a frame cut short"
        message = json.loads(body)
        assert message.get("jsonrpc") == "2.0", message
        yield message["params"]


@dataclass
class Session:
    """One adapter session: what came back on the pipe, and the process's exit and output."""

    payloads: list[dict[str, Any]]
    returncode: int
    output: str


def talk(command: list[str], cwd: Path, env: dict[str, str], timeout: float) -> Session:
    """Run `command` with a FIFO on `TEST_RUN_PIPE`, read as VS Code reads it (opened
    non-blocking before the process starts), until the process ends."""
    with tempfile.TemporaryDirectory(prefix="tcab-vscode-") as scratch:
        pipe = Path(scratch) / "python-test-results"
        os.mkfifo(pipe)
        reader = os.open(pipe, os.O_RDONLY | os.O_NONBLOCK)
        received = bytearray()
        with tempfile.TemporaryFile() as output:
            process = subprocess.Popen(command, cwd=cwd, env={**env, "TEST_RUN_PIPE": str(pipe)},
                                       stdout=output, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
            deadline = time.monotonic() + timeout
            try:
                while True:
                    ended = process.poll() is not None
                    readable, _, _ = select.select([reader], [], [], 0.05)
                    chunk = _read(reader) if readable else b""
                    received += chunk
                    if ended and not chunk:
                        break
                    if readable and not chunk:
                        time.sleep(0.05)  # the writer closed before the process ended: EOF until then
                    if time.monotonic() > deadline:
                        raise AssertionError(f"{command} still running after {timeout}s")
            finally:
                if process.poll() is None:
                    process.kill()
                process.wait()
                os.close(reader)
            output.seek(0)
            text = output.read().decode("utf-8", "replace")
    return Session(list(messages(bytes(received))), process.returncode, text)


def _read(fd: int) -> bytes:
    try:
        return os.read(fd, 65536)
    except BlockingIOError:
        return b""


# -- the explorer ----------------------------------------------------------------------------------

@dataclass
class ExplorerTest:
    """A test of the tree as the explorer keeps it."""

    name: str
    path: Path
    lineno: int | None
    run_id: str
    parents: tuple[str, ...]
    """The names of the nodes above it (folders, its file, a parametrized function): what the tree shows."""
    file: Path | None
    """The path of the file node the tree shows it under."""


@dataclass
class Explorer:
    """VS Code's test explorer for one workspace folder: `pytestArgs`, discovery and runs."""

    cwd: Path
    pytest_args: list[str]
    adapter: Path
    timeout: float = 300.0

    def _env(self) -> dict[str, str]:
        """This environment (less pytest's and GitHub's variables), the adapter first on
        PYTHONPATH as the extension puts it, and no cache written into the workspace."""
        env = {key: value for key, value in os.environ.items()
               if not key.startswith(("PYTEST_", "GITHUB_")) and key != "TEST_RUN_PIPE"}
        env["PYTHONPATH"] = os.pathsep.join([str(self.adapter), *filter(None, [os.environ.get("PYTHONPATH")])])
        env["PYTEST_ADDOPTS"] = "-p no:cacheprovider"
        return env

    def discover(self) -> Discovery:
        session = talk([sys.executable, "-m", "pytest", "-p", "vscode_pytest", "--collect-only", *self.pytest_args],
                       self.cwd, self._env(), self.timeout)
        payloads = [p for p in session.payloads if "tests" in p]
        assert payloads, f"no discovery payload came back (exit {session.returncode}):\n{session.output}"
        return Discovery(payloads[-1], session)

    def run(self, run_ids: list[str]) -> Run:
        """Run the selected tests as the explorer's Run does: their runIDs in RUN_TEST_IDS_PIPE."""
        with tempfile.NamedTemporaryFile("w", suffix=".txt", prefix="test-ids-", delete=False) as ids:
            ids.write("\n".join(run_ids))
        script = self.adapter / "vscode_pytest" / "run_pytest_script.py"
        session = talk([sys.executable, str(script), *run_arguments(self.pytest_args, self.cwd)],
                       self.cwd, {**self._env(), "RUN_TEST_IDS_PIPE": ids.name}, self.timeout)
        Path(ids.name).unlink(missing_ok=True)  # the script deletes it; an early failure may not
        results: dict[str, dict[str, Any]] = {}
        for payload in session.payloads:
            results.update(payload.get("result") or {})
        return Run(results, session)


@dataclass
class Discovery:
    payload: dict[str, Any]
    session: Session

    @property
    def status(self) -> str:
        return str(self.payload["status"])

    @property
    def errors(self) -> list[str]:
        return list(self.payload.get("error") or [])

    def tests(self) -> list[ExplorerTest]:
        """Every test of the tree, with its absolute path and runID (a compact payload expanded)."""
        base = Path(self.payload["pathBase"]) if self.payload.get("payloadVersion") == 2 else None
        id_base = Path(self.payload["idBase"]) if base is not None else None
        found: list[ExplorerTest] = []

        def walk(node: dict[str, Any], parents: tuple[str, ...], file: Path | None) -> None:
            path = Path(os.path.normpath(base / node["path"] if base is not None else node["path"]))
            if node["type_"] == "file":
                file = path
            if node["type_"] == "test":
                run_id = node["runID"]
                if id_base is not None:
                    id_file, _, tail = run_id.partition("::")
                    run_id = f"{os.path.normpath(id_base / id_file)}::{tail}"
                line = int(node["lineno"]) if node.get("lineno") else None
                found.append(ExplorerTest(node["name"], path, line, run_id, parents, file))
                return
            for child in node.get("children", []):
                walk(child, (*parents, node["name"]), file)

        tree = self.payload["tests"]
        if tree is not None:
            walk(tree, (), None)
        return found


@dataclass
class Run:
    results: dict[str, dict[str, Any]]
    """Each runID that came back, with its result (`outcome`, `message`)."""
    session: Session

    @property
    def outcomes(self) -> dict[str, str]:
        """Each runID that came back, with its outcome (`success`, `failure`, `skipped`, `error`)."""
        return {run_id: str(result["outcome"]) for run_id, result in self.results.items()}
