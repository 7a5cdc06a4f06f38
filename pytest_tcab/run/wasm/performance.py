"""Performance cases in run mode: the wasm module's build, its answers, and the fuel they cost.

`pytest_tcab_run_items` turns a performance case into `build`, `correctness[<case>]` per smoke case and
`fuel[<case>]` per stress case. The items of one run share a `PerfRun`, which builds and loads
the module once per process and runs each smoke case once. A stress item asks the `PerfRun`
whether the smoke cases passed instead of relying on their items having run before it: under
pytest-xdist they may run on another worker, and `-k fuel` deselects them altogether.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from pytest_tcab.case import Performance
from pytest_tcab.errors import TcabError
from pytest_tcab.models.performance import PerfBuild
from pytest_tcab.models.performance import PerfCase
from pytest_tcab.outcomes import NotGraded
from pytest_tcab.outcomes import OverCeiling
from pytest_tcab.outcomes import count_as_failed
from pytest_tcab.outcomes import mark_over_ceiling
from pytest_tcab.outcomes import skip_unless_strict
from pytest_tcab.paths import PathEscapes
from pytest_tcab.paths import contained
from pytest_tcab.run.sandbox.items import BuildFailed
from pytest_tcab.run.sandbox.sandbox import SandboxUnavailable
from pytest_tcab.run.sandbox.sandbox import session_sandbox
from pytest_tcab.run.sandbox.steps import CommandResult
from pytest_tcab.run.sandbox.steps import _step_failure
from pytest_tcab.run.sandbox.steps import build_environment
from pytest_tcab.run.sandbox.steps import cap_failure
from pytest_tcab.run.sandbox.steps import prepare_workdir
from pytest_tcab.run.sandbox.steps import run_command
from pytest_tcab.run.context import RunContext
from pytest_tcab.run.item import RunItem
from pytest_tcab.run.wasm.runner import LoadedModule
from pytest_tcab.run.wasm.runner import ModuleRejected
from pytest_tcab.run.wasm.runner import RunResult
from pytest_tcab.run.wasm.runner import WasmRunner
from pytest_tcab.run.wasm.runner import answers_match
from pytest_tcab.run.wasm.runner import wasmtime_version
from pytest_tcab.toml import line_in

FUEL_PROPERTY = "tcab.fuel"
"""The user property carrying a case's fuel: it rides the report to the xdist controller and
lands in JUnit's `<properties>` with no extra code."""

_SHOWN_BYTES = 120
"""How much of a wrong answer a failure quotes: enough to see the difference, never a dump."""

runner_key = pytest.StashKey[WasmRunner]()


def wasm_runner(config: pytest.Config) -> WasmRunner:
    """The session's one engine and compiled-module cache (one per xdist worker).

    A second engine would recompile every module and run a second epoch ticker; the runner is
    closed, its ticker stopped, when the session ends.
    """
    runner = config.stash.get(runner_key, None)
    if runner is None:
        cache = config.invocation_params.dir / config.getoption("tcab_wasm_cache")
        runner = WasmRunner(cache)
        config.stash[runner_key] = runner
        config.add_cleanup(runner.close)
    return runner


class PerfFailed(TcabError):
    """A case did not answer correctly within its bounds; the message says how it ended."""


@dataclass(frozen=True)
class ModuleBuild:
    """What install, build and load produced: the module, or why there is none."""

    steps: tuple[CommandResult, ...]
    module: LoadedModule | None
    message: str
    """The failure in user terms when `module` is None, else where the module came from."""
    load_s: float | None = None
    """Seconds to compile the module (or fetch it from the cache) and check it against the ABI."""


def build_module(run: RunContext, build: PerfBuild, entry: str) -> ModuleBuild:
    """Install and build in a private copy of the run's tree, then load `build.module` and check
    it against the ABI with `entry` as the entry function."""
    timeout = float(run.config.getoption("tcab_build_timeout"))
    try:
        sandbox = session_sandbox(run.config)
    except SandboxUnavailable as exc:
        return ModuleBuild((), None, str(exc))
    workdir = prepare_workdir(run.source, run.scratch())
    env = build_environment()
    steps: list[CommandResult] = []
    for label, command in (("install", build.install), ("build", build.build)):
        result = run_command(command, workdir.path, timeout, env, sandbox=sandbox, step=label, disk=run.disk)
        steps.append(result)
        failed = cap_failure(label, result, run.disk)
        if failed is not None:
            if failed[1]:
                raise NotGraded(failed[0])
            return ModuleBuild(tuple(steps), None, failed[0])
        if not result.ok:
            return ModuleBuild(tuple(steps), None, f"{_step_failure(label, result, timeout)}\n{result.tail()}")
    relative = build.module
    try:
        path = contained(workdir.path, relative)
    except PathEscapes as exc:
        return ModuleBuild(tuple(steps), None, f"[build].module {relative!r} {exc}")
    if not path.is_file():
        return ModuleBuild(tuple(steps), None, _missing_module(relative, workdir.path))
    start = time.perf_counter()
    try:
        module = wasm_runner(run.config).load(path, entry)
    except ModuleRejected as exc:
        return ModuleBuild(tuple(steps), None, f"{relative} is rejected: {exc.message}")
    load_s = time.perf_counter() - start
    origin = "the cache" if module.cached else "a fresh compile"
    return ModuleBuild(tuple(steps), module, f"built {relative}, loaded from {origin}", load_s)


def record_module_build(item: RunItem, built: ModuleBuild) -> None:
    """Attach a module build's steps and figures to `item`; raise BuildFailed when there is no module."""
    item.record(steps=[step.figures() for step in built.steps], message=built.message)
    if built.module is None:
        raise BuildFailed(built.message)
    item.record(
        wasmtime=wasmtime_version(),
        module_sha256=built.module.sha256,
        module_cached=built.module.cached,
        load_s=round(built.load_s or 0.0, 4),
    )


class PerfRun:
    """What the items of one performance run share within a process: the module and the smoke runs."""

    def __init__(self, run: RunContext, tables: Performance) -> None:
        self.run = run
        self.tables = tables
        self._build: ModuleBuild | None = None
        self._smoke: dict[str, RunResult] = {}

    def build(self) -> ModuleBuild:
        """Install and build in a private copy of the produced tree, then load `[build].module`."""
        if self._build is None:
            self._build = build_module(self.run, self.tables.build, self.tables.contract.entry)
        return self._build

    def require_module(self) -> LoadedModule:
        """The loaded module, or the calling item fails as not run: a broken build never looks green."""
        built = self.build()
        if built.module is None:
            pytest.fail(f"not run: build failed ({built.message.splitlines()[0]})", pytrace=False)
        return built.module

    def execute(self, case: PerfCase) -> RunResult:
        """Call the entry once on the case's input, within its fuel, memory and wall-clock bounds."""
        module = self.require_module()
        sandbox = self.tables.sandbox
        return wasm_runner(self.run.config).run(
            module,
            self.tables.contract.entry,
            (self.run.reporter_folder / case.input).read_bytes(),
            sandbox.fuel_limit,
            case.fuel_runway,
            sandbox.max_memory_bytes,
            float(self.run.config.getoption("tcab_wasm_timeout")),
        )

    def smoke(self, case: PerfCase) -> RunResult:
        """The smoke case's run, done once whichever item asks first."""
        if case.case_id not in self._smoke:
            self._smoke[case.case_id] = self.execute(case)
        return self._smoke[case.case_id]

    def answer_problem(self, case: PerfCase, result: RunResult) -> str | None:
        """Why `result` is not the case's expected answer, or None when it is."""
        if result.output is None:
            return result.message
        expected = (self.run.reporter_folder / case.expected).read_bytes()
        if answers_match(result.output, expected):
            return None
        return _wrong_answer(case, result.output, expected)

    def failed_smoke(self) -> list[str]:
        """The ids of smoke cases that answered wrongly or not at all, in manifest order."""
        return [
            case.case_id
            for case in self.tables.cases
            if case.kind == "smoke" and self.answer_problem(case, self.smoke(case)) is not None
        ]


def _missing_module(relative: str, workdir: Path) -> str:
    found = sorted(path.relative_to(workdir).as_posix() for path in workdir.rglob("*.wasm"))
    seen = f"; the build left {', '.join(found[:5])}" if found else "; the build left no .wasm file at all"
    return f"the build wrote no module at [build].module = {relative!r}{seen}"


def _wrong_answer(case: PerfCase, actual: bytes, expected: bytes) -> str:
    """The first differing byte and both answers around it, short enough to read at a glance."""
    offset = next((i for i, (a, b) in enumerate(zip(actual, expected)) if a != b), min(len(actual), len(expected)))
    start = max(0, offset - _SHOWN_BYTES // 2)
    return (
        f"wrong answer for {case.input}: it differs from {case.expected} at byte {offset:,} "
        f"(got {len(actual):,} bytes, expected {len(expected):,})\n"
        f"  got:      {_quote(actual, start)}\n"
        f"  expected: {_quote(expected, start)}"
    )


def _quote(data: bytes, start: int) -> str:
    shown = data[start : start + _SHOWN_BYTES]
    text = repr(shown)[2:-1]  # bytes repr escapes what would garble a terminal
    return ("..." if start else "") + text + ("..." if start + _SHOWN_BYTES < len(data) else "")


class PerfItem(RunItem):
    """A performance item: it works through its run's shared `PerfRun`."""

    wasm = True
    """Marked `wasm` (`pytest_tcab.selection`)."""

    def __init__(self, *, perf: PerfRun, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.perf = perf


class CaseItem(PerfItem):
    """A performance item about one `[[case]]`."""

    def __init__(self, *, case: PerfCase, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.case = case


class ModuleBuildItem(PerfItem):
    """`build`: install and build the crate, then load the module and check it against the ABI."""

    kind = "build"

    def runtest(self) -> None:
        record_module_build(self, self.perf.build())


class CorrectnessItem(CaseItem):
    """`correctness[<case>]`: a smoke case answers as expected; its fuel is shown, not scored."""

    kind = "correctness"

    def runtest(self) -> None:
        case = self.case
        result = self.perf.smoke(case)
        if result.outcome in ("ok", "out-of-fuel"):
            self.record(fuel=result.fuel_consumed)
        problem = self.perf.answer_problem(case, result)
        if problem is not None:
            raise PerfFailed(problem)


class FuelItem(CaseItem):
    """`fuel[<case>]`: a stress case answers as expected, and what that cost against the ceiling."""

    kind = "fuel"

    def runtest(self) -> None:
        case = self.case
        self.perf.require_module()
        failed = self.perf.failed_smoke()
        if failed:
            count_as_failed(self)
            names = ", ".join(f"correctness[{case_id}]" for case_id in failed)
            skip_unless_strict(self.config, f"not run: smoke failed ({names})")
        sandbox = self.perf.tables.sandbox
        result = self.perf.execute(case)
        budget = math.floor(Fraction(sandbox.fuel_limit) * Fraction(case.fuel_runway))
        self.record(fuel_limit=sandbox.fuel_limit, fuel_runway=case.fuel_runway)
        if result.outcome in ("ok", "out-of-fuel"):
            self.record(fuel=result.fuel_consumed)  # JUnit shows it as FUEL_PROPERTY
        if result.outcome == "out-of-fuel":
            raise PerfFailed(
                f"ran out of the runway: spent all {result.fuel_consumed:,} fuel (fuel_limit "
                f"{sandbox.fuel_limit:,} x fuel_runway {case.fuel_runway:g}) without answering"
            )
        problem = self.perf.answer_problem(case, result)
        if problem is not None:
            raise PerfFailed(problem)
        if result.fuel_consumed > sandbox.fuel_limit:
            mark_over_ceiling(self)
            raise OverCeiling(
                f"{result.fuel_consumed:,} fuel is past the ceiling of {sandbox.fuel_limit:,} "
                f"({result.fuel_consumed / sandbox.fuel_limit:.2f}x; the runway allows {budget:,})"
            )


@pytest.hookimpl(tryfirst=True)
def pytest_tcab_run_items(run: RunContext, parent: pytest.Collector) -> Iterator[pytest.Item]:
    """`build`, then `correctness[<case>]` per smoke case, then `fuel[<case>]` per stress case.

    Each case item points at its `[[case]]` line in the manifest, so a failure is one click away
    from the input, the expected answer and the runway it was judged by.
    """
    tables = run.case.performance
    if tables is None:
        return
    perf = PerfRun(run, tables)
    manifest = run.case.manifest_path

    def where(*key: str | int) -> tuple[Path, int | None]:
        return manifest, line_in(manifest, key)

    yield ModuleBuildItem.from_parent(parent, name="build", run=run, key="build", location=where("build"),
                                      perf=perf)
    indexed = list(enumerate(tables.cases))
    for i, case in indexed:
        if case.kind == "smoke":
            yield CorrectnessItem.from_parent(parent, name=f"correctness[{case.case_id}]", run=run, key=case.case_id,
                                              location=where("case", i), perf=perf, case=case)
    for i, case in indexed:
        if case.kind == "stress":
            yield FuelItem.from_parent(parent, name=f"fuel[{case.case_id}]", run=run, key=case.case_id,
                                       location=where("case", i), perf=perf, case=case)
