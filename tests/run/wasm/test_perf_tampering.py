"""A performance build that rewrites the expected answers to match its constant answer.

The module answers `{"checksum":0}` whatever the input; the build (tests/attack.py) finds the
suite through `/proc/<pid>/cmdline` and writes that answer over every `.out`. Under the sandbox
it finds nothing; without it the suite on disk is rewritten, and the answers are still judged
against the copy taken before the build, with the session failing "the suite changed".
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import wasmtime
from test_perf_run import RUN
from test_perf_run import SMOKE
from test_perf_run import write_run

from tests.attack import FORGED_ANSWER
from tests.attack import attack_command

pytestmark = pytest.mark.wasm

CONSTANT = f"""
(module
  (memory (export "memory") 1)
  (data (i32.const 0) {json.dumps(FORGED_ANSWER)})
  (global $heap (mut i32) (i32.const 1024))
  (func (export "alloc") (param $len i32) (result i32)
    (local $ptr i32)
    (local.set $ptr (global.get $heap))
    (global.set $heap (i32.add (global.get $heap) (local.get $len)))
    (local.get $ptr))
  (func (export "simulate") (param i32 i32) (result i64) (i64.const {len(FORGED_ANSWER)})))
"""
"""Answers FORGED_ANSWER at offset 0 (`ptr << 32 | len`) to every input."""


def hostile_run(path: Path) -> Path:
    module = path / "constant.wasm"
    module.write_bytes(bytes(wasmtime.wat2wasm(CONSTANT)))
    write_run(path, module)
    (path / "out").mkdir()
    attack = attack_command(path / RUN, path, Path.home(), path / "out")
    manifest = path / "suite/test-cases/performance/easy/mini/v1.0.0/test-case.toml"
    text = manifest.read_text()
    manifest.write_text(text.replace('build = "mkdir', f'build = "{attack} && mkdir', 1))
    return path


def session(path: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    """A child pytest, so `--tcab-suite` is in its `/proc/<pid>/cmdline` for the attack to find."""
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:faulthandler",
                           "--tcab-suite=suite", f"--tcab-run={RUN}", "--tcab-out=out", *args],
                          check=False, cwd=path, capture_output=True, text=True, timeout=600)
    return done, json.loads((path / "out/results.json").read_text())


def outcomes(data: dict[str, Any]) -> dict[str, str]:
    return {item["nodeid"].rpartition("::")[2]: item["outcome"] for item in data["runs"][0]["items"]}


def expected_answer(path: Path) -> str:
    return (path / "suite/test-cases/performance/easy/mini/v1.0.0" / f"{SMOKE.stem}.out").read_text()


def test_a_sandboxed_build_cannot_rewrite_the_expected_answers(tmp_path: Path) -> None:
    path = hostile_run(tmp_path)
    before = expected_answer(path)
    done, data = session(path)
    (build,) = [item for item in data["runs"][0]["items"] if item["kind"] == "build"]
    log = build["steps"][1]["output"]
    assert "rewritten: 0" in log and "suite readable: False" in log, log
    assert expected_answer(path) == before
    assert done.returncode == pytest.ExitCode.TESTS_FAILED
    assert outcomes(data)["correctness[three]"] == "failed"
    assert data["suite_changed"] == []


def test_unsandboxed_rewritten_answers_change_no_verdict(tmp_path: Path) -> None:
    path = hostile_run(tmp_path)
    done, data = session(path, "--tcab-no-sandbox")
    assert expected_answer(path) == FORGED_ANSWER  # the attack did write the suite
    assert done.returncode == pytest.ExitCode.TESTS_FAILED
    verdicts = outcomes(data)
    assert verdicts["correctness[three]"] == "failed"
    assert all(verdicts[f"fuel[{case}]"] != "passed" for case in ("short", "long", "tight"))  # smoke failed
    assert "wrong answer for smoke/three.json" in done.stdout
    assert f"changed: {path / 'suite/test-cases/performance/easy/mini/v1.0.0/smoke/three.out'}" in data["suite_changed"]
    assert "the suite changed during the run" in done.stdout and "NOT SANDBOXED" in done.stdout
