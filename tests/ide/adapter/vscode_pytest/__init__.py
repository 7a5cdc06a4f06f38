"""A stand-in for microsoft/vscode-python's pytest adapter (`python_files/vscode_pytest`), which is
not published on PyPI: the same environment, messages and framing, and ids built by its rule.

The rule (`get_absolute_test_id`, `create_test_node`): a test's `runID` is `str(item.path)` joined
by `::` to its node id's tail; its `path` is `item.path` and its `lineno` is `item.location[1] + 1`;
the tree nests each test under its parent's `path`, and that file under its folders. A run reports
each item's outcome under the same runID, from its call report (or its skipped setup), at once.
"""

from __future__ import annotations

import atexit
import json
import os
import pathlib
from typing import Any

import pytest

ERRORS: list[str] = []
_PATHS: dict[str, pathlib.Path] = {}
_REPORTED: set[str] = set()
_discovery = False


def run_id(nodeid: str, path: pathlib.Path) -> str:
    """`get_absolute_test_id`: the item's path, then every part of its node id after the first."""
    return "::".join([str(path), *nodeid.split("::")[1:]])


def pytest_load_initial_conftests(early_config: pytest.Config, parser: pytest.Parser, args: list[str]) -> None:
    global _discovery
    _discovery = "--collect-only" in args


def pytest_internalerror(excrepr: Any, excinfo: pytest.ExceptionInfo[BaseException]) -> None:
    ERRORS.append(excinfo.exconly())


def pytest_exception_interact(node: Any, call: pytest.CallInfo[Any], report: Any) -> None:
    if _discovery:
        ERRORS.append(report.longreprtext)
    elif isinstance(node, pytest.Item):
        _send_outcome(run_id(node.nodeid, node.path), "error", report.longreprtext)


@pytest.hookimpl(hookwrapper=True, trylast=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Any:
    _PATHS[item.nodeid] = item.path
    yield


@pytest.hookimpl(hookwrapper=True, trylast=True)
def pytest_report_teststatus(report: pytest.TestReport, config: pytest.Config) -> Any:
    if report.when == "call" or (report.when == "setup" and report.skipped):
        outcome = "success" if report.passed else "failure" if report.failed else "skipped"
        path = _PATHS.get(report.nodeid, pathlib.Path.cwd())
        _send_outcome(run_id(report.nodeid, path), outcome, report.longreprtext if report.failed else None)
    yield


def _send_outcome(test_id: str, outcome: str, message: str | None) -> None:
    if test_id in _REPORTED:
        return
    _REPORTED.add(test_id)
    result = {test_id: {"test": test_id, "outcome": outcome, "message": message, "traceback": None, "subtest": None}}
    _send({"cwd": os.getcwd(), "status": "success", "result": result, "not_found": None,
           "error": ERRORS or None})


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    root = pathlib.Path.cwd()
    if _discovery:
        _send({"cwd": str(root), "status": "error" if ERRORS else "success", "tests": _tree(session, root),
               "error": ERRORS})
    elif exitstatus not in (0, 1):
        ERRORS.append(f"Pytest exited with error status: {exitstatus}")
        _send({"cwd": str(root), "status": "error", "result": None, "not_found": None, "error": ERRORS})


def _tree(session: pytest.Session, root: pathlib.Path) -> dict[str, Any]:
    """Each item under its parent's file, each file under its folders up to the session folder
    (the common parent, when a file lies outside the working directory): `build_test_tree`."""
    files: dict[str, dict[str, Any]] = {}
    for item in session.items:
        parent = item.parent.path if item.parent is not None else item.path
        file = files.setdefault(str(parent), _node(parent.name, parent, "file"))
        identity = run_id(item.nodeid, item.path)
        line = item.location[1]
        file["children"].append({"name": item.name, "path": str(item.path), "type_": "test", "id_": identity,
                                 "runID": identity, "lineno": str(line + 1) if line is not None else ""})
    top_path = pathlib.Path(os.path.commonpath([root, *files]))
    folders = {str(top_path): _node(top_path.name, top_path, "folder")}
    for key, file in files.items():
        child, path = file, pathlib.Path(key).parent
        while True:
            known = str(path) in folders
            folder = folders.setdefault(str(path), _node(path.name, path, "folder"))
            folder["children"].append(child)
            if known:
                break
            child, path = folder, path.parent
    return folders[str(top_path)]


def _node(name: str, path: pathlib.Path, kind: str) -> dict[str, Any]:
    return {"name": name, "path": str(path), "type_": kind, "id_": str(path), "children": []}


_writer = None
atexit.register(lambda: _writer.close() if _writer else None)


def _send(payload: dict[str, Any]) -> None:
    """One JSON-RPC message on `TEST_RUN_PIPE`, framed as `send_message` frames it."""
    global _writer
    if _writer is None:
        _writer = open(os.environ["TEST_RUN_PIPE"], "wb")  # noqa: SIM115 - kept open for the session
    data = json.dumps({"jsonrpc": "2.0", "params": payload})
    _writer.write(f"content-length: {len(data)}\r\ncontent-type: application/json\r\n\r\n{data}".encode())
    _writer.flush()
