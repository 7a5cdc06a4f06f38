"""Fixtures for the real-wasmtime tests: the hand-written WAT modules, compiled once per session."""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_tcab.run.wasm.runner import WasmRunner

MODULES = Path(__file__).parent / "modules"


@pytest.fixture(scope="session")
def wasm_file(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Path]:
    """Compile `modules/<name>.wat` to a `.wasm` file, as a build would leave its artifact."""
    import wasmtime

    out = tmp_path_factory.mktemp("modules")

    def build(name: str) -> Path:
        path = out / f"{name}.wasm"
        if not path.exists():
            path.write_bytes(bytes(wasmtime.wat2wasm((MODULES / f"{name}.wat").read_text())))
        return path

    return build


@pytest.fixture
def runner(tmp_path: Path) -> Iterator[WasmRunner]:
    """A runner with its own cache, closed (ticker stopped) after the test."""
    with WasmRunner(tmp_path / "cache") as wasm_runner:
        yield wasm_runner
