"""Running a performance module under wasmtime: ABI checks, fuel, memory and wall-clock bounds."""

from __future__ import annotations

import ctypes
import hashlib
import json
import math
import platform
import threading
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from importlib.metadata import version
from pathlib import Path
from types import TracebackType
from typing import Literal
from typing import Self

import wasmtime

from pytest_tcab.bounded import bound
from pytest_tcab.caches import write_atomically
from pytest_tcab.run.wasm.memory import CappedMemories
from pytest_tcab.run.wasm.memory import MemoryBudget

Outcome = Literal["ok", "out-of-fuel", "trap", "timeout", "memory"]
"""How a run ended: answered, used up its fuel, trapped, hit the wall clock or the memory cap."""

_ENGINE_FLAGS: dict[str, bool] = {"consume_fuel": True, "epoch_interruption": True, "memory_init_cow": False}
"""The engine configuration; serialised modules are only valid for this exact set. Copy-on-write
memory images need wasmtime's own mmap memories, not the host-made ones of `CappedMemories`."""

_EPOCH_INTERVAL_S = 0.01
"""How often the ticker advances the epoch: the resolution of every wall-clock bound."""

_CACHE_MAGIC = b"tcab-cwasm-1\n"
"""Leads every cache file, so a foreign or older file is recognised and ignored."""

_FUEL_MAX = 2**63 - 1
"""wasmtime keeps fuel in a signed 64-bit counter; larger budgets would silently saturate."""

_WASM_MAGIC = b"\0asm"


class ModuleRejected(Exception):
    """The module cannot be run under the ABI; the message says exactly what is wrong."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class LoadedModule:
    """A compiled module whose imports and exports passed the ABI check."""

    path: Path
    sha256: str
    """Hex digest of the wasm bytes: fuel figures are only comparable for the same module."""
    module: wasmtime.Module
    cached: bool
    """True when the compiled code came from the on-disk cache rather than a fresh compile."""


@dataclass(frozen=True)
class RunResult:
    """What one call of the entry did, worded for the person reading a failed item."""

    outcome: Outcome
    fuel_consumed: int
    """Fuel spent by the entry call alone (by instantiation or `alloc` when one of those stopped
    the run); after a timeout, a lower bound, as wasmtime records fuel at calls and returns, not
    inside a loop it interrupts."""
    output: bytes | None
    """The answer bytes; None when the entry did not return or its answer lies outside memory."""
    message: str


def wasmtime_version() -> str:
    """The installed wasmtime version, recorded beside every fuel figure it produced."""
    return version("wasmtime")


def answers_match(actual: bytes, expected: bytes) -> bool:
    """Whether an answer matches: the same bytes, or both JSON documents with equal values.

    JSON values are compared by type as well as value, so `true` never equals `1` (Python's
    `True == 1` would say it does), while `1` and `1.0` are the same JSON number.
    """
    if actual == expected:
        return True
    try:
        return _json_equal(_parse_json(actual), _parse_json(expected))
    except ValueError:
        return False


def _parse_json(data: bytes) -> object:
    def reject_constant(name: str) -> object:
        # NaN and Infinity are not JSON, and NaN would never equal itself anyway.
        raise ValueError(f"{name} is not JSON")

    return json.loads(data.decode("utf-8"), parse_constant=reject_constant)


def _json_equal(a: object, b: object) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_json_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_json_equal(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def _signature(name: str, func: wasmtime.FuncType) -> str:
    params = ", ".join(str(p) for p in func.params)
    results = [str(r) for r in func.results]
    returned = results[0] if len(results) == 1 else "(" + ", ".join(results) + ")"
    return f"{name}({params}) -> {returned}"


def _abi_problems(module: wasmtime.Module, entry: str) -> list[str]:
    """Every way the module departs from the ABI, in the order a reader would fix them."""
    problems: list[str] = []
    imports = [f"{imp.module}.{imp.name}" for imp in module.imports]
    if imports:
        problems.append(
            f"the module imports {', '.join(imports)}, but a performance module must import nothing"
        )
    exports = {export.name: export.type for export in module.exports}
    memory = exports.get("memory")
    if memory is None:
        problems.append("the module does not export `memory`")
    elif not isinstance(memory, wasmtime.MemoryType):
        problems.append("the export `memory` is not a memory")
    for name, expected in (("alloc", "alloc(i32) -> i32"), (entry, f"{entry}(i32, i32) -> i64")):
        func = exports.get(name)
        if func is None:
            problems.append(f"the module does not export `{name}` (expected {expected})")
        elif not isinstance(func, wasmtime.FuncType):
            problems.append(f"the export `{name}` is not a function (expected {expected})")
        elif _signature(name, func) != expected:
            problems.append(
                f"`{_signature(name, func)}` has the wrong signature (expected {expected})"
            )
    return problems


class WasmRunner:
    """One engine, its compiled-module cache and the epoch ticker that bounds every call.

    The engine meters fuel (the score) and checks epochs (the wall-clock bound a host needs
    because a fuel budget can be large enough to run for hours). A daemon thread advances the
    epoch every `_EPOCH_INTERVAL_S`; `close()` stops it.
    """

    def __init__(self, cache_dir: Path | None) -> None:
        config = wasmtime.Config()
        for flag, enabled in _ENGINE_FLAGS.items():
            setattr(config, flag, enabled)
        self.memories = CappedMemories()
        self.memories.install(config)
        self.engine = wasmtime.Engine(config)
        self.cache_dir = cache_dir
        self._stop = threading.Event()
        self._ticker = threading.Thread(target=self._tick, name="tcab-epoch-ticker", daemon=True)
        self._ticker.start()

    def _tick(self) -> None:
        while not self._stop.wait(_EPOCH_INTERVAL_S):
            self.engine.increment_epoch()

    def close(self) -> None:
        """Stop the epoch ticker; a later run would have no wall-clock bound."""
        self._stop.set()
        self._ticker.join()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- loading -----------------------------------------------------------------------------

    def load(self, path: Path, entry: str) -> LoadedModule:
        """Compile (or fetch from the cache) the module at `path` and check it against the ABI.

        Raises ModuleRejected naming every problem: unreadable or invalid wasm, imports,
        missing exports, wrong signatures.
        """
        try:
            wasm = path.read_bytes()
        except OSError as err:
            raise ModuleRejected(f"cannot read the module {path}: {err.strerror}") from None
        if not wasm.startswith(_WASM_MAGIC):
            # wasmtime would read such bytes as the text format; the artifact must be a binary.
            raise ModuleRejected(
                f"{path.name} is not a wasm binary (it does not start with \\0asm)"
            )
        digest = hashlib.sha256(wasm).hexdigest()
        module, cached = self._compile(wasm, digest)
        problems = _abi_problems(module, entry)
        if problems:
            raise ModuleRejected("; ".join(problems))
        return LoadedModule(
            path=path,
            sha256=digest,
            module=module,
            cached=cached,
        )

    def _cache_file(self, digest: str) -> Path | None:
        if self.cache_dir is None:
            return None
        # Serialised code is only valid for the wasmtime version, engine flags and CPU that made it.
        settings = ",".join(f"{k}={int(v)}" for k, v in sorted(_ENGINE_FLAGS.items()))
        key = f"{digest}\0{wasmtime_version()}\0{settings}\0{platform.machine()}"
        return self.cache_dir / f"{hashlib.sha256(key.encode()).hexdigest()}.cwasm"

    def _compile(self, wasm: bytes, digest: str) -> tuple[wasmtime.Module, bool]:
        cache_file = self._cache_file(digest)
        if cache_file is not None:
            module = self._read_cache(cache_file)
            if module is not None:
                return module, True
        try:
            module = wasmtime.Module(self.engine, wasm)
        except wasmtime.WasmtimeError as err:
            raise ModuleRejected(f"not a valid wasm module: {_cause(str(err))}") from None
        if cache_file is not None:
            _write_cache(cache_file, bytes(module.serialize()))
        return module, False

    def _read_cache(self, cache_file: Path) -> wasmtime.Module | None:
        """The cached module, or None when the entry is absent, truncated or corrupt.

        Deserialising trusts the bytes as machine code, so the payload's own digest is checked
        first: a damaged entry is recompiled and rewritten, never executed.
        """
        try:
            blob = cache_file.read_bytes()
        except OSError:
            return None
        header_len = len(_CACHE_MAGIC) + 32
        if not blob.startswith(_CACHE_MAGIC) or len(blob) < header_len:
            return None
        payload = blob[header_len:]
        if hashlib.sha256(payload).digest() != blob[len(_CACHE_MAGIC) : header_len]:
            return None
        try:
            return wasmtime.Module.deserialize(self.engine, payload)
        except wasmtime.WasmtimeError:
            return None

    # -- running -----------------------------------------------------------------------------

    def run(
        self,
        module: LoadedModule,
        entry: str,
        data: bytes,
        fuel_limit: int,
        runway: float,
        max_memory_bytes: int,
        wall_timeout_s: float,
    ) -> RunResult:
        """Call `entry` once on `data` in a fresh store and instance, and say how it ended.

        The budget is `fuel_limit * runway`, floored (exact, not a float product): it is handed
        over for instantiation and `alloc`, then set afresh right before the entry call, so the
        figure is that call's alone. An `alloc` whose buffer does not fit in memory ends the run
        as a trap. Raises ModuleRejected when `entry` is not an ABI entry of the module (`load`
        may have checked another name), ValueError for a budget wasmtime cannot hold.
        """
        problems = _abi_problems(module.module, entry)
        if problems:
            raise ModuleRejected("; ".join(problems))
        if fuel_limit <= 0 or not 1.0 <= runway < math.inf:
            raise ValueError(
                f"fuel_limit must be positive and runway finite and >= 1.0, "
                f"not {fuel_limit} x {runway}"
            )
        budget = math.floor(Fraction(fuel_limit) * Fraction(runway))
        if budget > _FUEL_MAX:
            raise ValueError(f"a fuel budget of {budget:,} exceeds wasmtime's {_FUEL_MAX:,}")
        live = self.instantiate(module, entry, budget, max_memory_bytes, wall_timeout_s)
        if isinstance(live, RunResult):
            return live
        return live.call(data, budget)

    def instantiate(
        self,
        module: LoadedModule,
        entry: str,
        fuel: int,
        max_memory_bytes: int,
        wall_timeout_s: float,
    ) -> LiveInstance | RunResult:
        """An instance in a store of its own, under the memory cap; instantiation may spend up
        to `fuel`. A RunResult says why there is none (a trap, the cap refused)."""
        store = wasmtime.Store(self.engine)
        # The memory cap is the memory creator's, which records what a refused grow asked for;
        # the memory made now keeps this budget for its whole life.
        store.set_limits(instances=1, memories=1)
        memory_budget = self.memories.budget = MemoryBudget(max_memory_bytes)
        store.set_epoch_deadline(max(1, math.ceil(wall_timeout_s / _EPOCH_INTERVAL_S)))
        store.set_fuel(fuel)
        call = _Call(store, fuel, memory_budget, wall_timeout_s)
        try:
            instance = wasmtime.Instance(store, module.module, [])
        except wasmtime.Trap as trap:
            return call.trapped(trap, "instantiation")
        except wasmtime.WasmtimeError as err:
            if memory_budget.refused is not None:
                return RunResult(
                    "memory",
                    0,
                    None,
                    f"instantiation asked for {_memory_past_cap(memory_budget)}: the module's "
                    f"initial memory does not fit",
                )
            return RunResult("trap", 0, None, f"instantiation failed: {_cause(str(err))}")
        return LiveInstance(store, instance, entry, memory_budget, wall_timeout_s)


class LiveInstance:
    """An instantiated module whose state lives across calls (a controller across the ticks
    of a match); each call runs under a fresh fuel budget and wall-clock bound."""

    def __init__(self, store: wasmtime.Store, instance: wasmtime.Instance, entry: str,
                 memory_budget: MemoryBudget, wall_timeout_s: float) -> None:
        exports = instance.exports(store)
        memory, alloc, entry_func = exports["memory"], exports["alloc"], exports[entry]
        assert isinstance(memory, wasmtime.Memory)
        assert isinstance(alloc, wasmtime.Func)
        assert isinstance(entry_func, wasmtime.Func)
        self.store = store
        self.entry = entry
        self._memory = memory
        self._alloc, self._entry = _fast_call(store, alloc, 1), _fast_call(store, entry_func, 2)
        self._memory_budget = memory_budget
        self._wall_timeout_s = wall_timeout_s
        self._epochs = max(1, math.ceil(wall_timeout_s / _EPOCH_INTERVAL_S))

    def call(self, data: bytes, budget: int) -> RunResult:
        """`alloc`, write `data`, call the entry: each of the two calls may spend `budget` fuel,
        and the figure is the entry's alone."""
        store, memory, entry = self.store, self._memory, self.entry
        store.set_epoch_deadline(self._epochs)
        store.set_fuel(budget)
        self._memory_budget.refused = None  # what a call is told is what it asked for itself
        call = _Call(store, budget, self._memory_budget, self._wall_timeout_s)
        alloc, entry_func = self._alloc, self._entry
        try:
            ptr = alloc(len(data)) & 0xFFFFFFFF
        except wasmtime.Trap as trap:
            return call.trapped(trap, "alloc")
        size = memory.data_len(store)
        if ptr + len(data) > size:
            return RunResult(
                "trap",
                0,
                None,
                f"alloc({len(data)}) returned {ptr:#x}, which leaves no room for the input "
                f"in a memory of {size:,} bytes",
            )
        memory.write(store, data, ptr)
        store.set_fuel(budget)
        try:
            ret = entry_func(ptr, len(data))
        except wasmtime.Trap as trap:
            return call.trapped(trap, entry)
        fuel = budget - store.get_fuel()
        ret &= 0xFFFFFFFFFFFFFFFF
        out_ptr, out_len = ret >> 32, ret & 0xFFFFFFFF
        size = memory.data_len(store)
        if out_ptr + out_len > size:
            return RunResult(
                "ok",
                fuel,
                None,
                f"{entry} returned an answer at {out_ptr:#x} of {out_len:,} bytes, outside "
                f"its memory of {size:,} bytes",
            )
        output = bytes(memory.read(store, out_ptr, out_ptr + out_len))
        refused = (
            f" (it went on after a refused request for {_memory_past_cap(self._memory_budget)})"
            if self._memory_budget.refused is not None
            else ""
        )
        return RunResult(
            "ok", fuel, output, f"{entry} answered {out_len:,} bytes for {fuel:,} fuel{refused}"
        )


def _fast_call(store: wasmtime.Store, func: wasmtime.Func, params: int) -> Callable[..., int]:
    """`func` (i32 parameters, one integer result: an ABI export) as a plain callable.

    `Func.__call__` reads and converts the function's type on every call, which costs several
    times a controller's whole tick; a tournament makes two such calls per controller per tick,
    so they go straight to wasmtime's C API with preallocated values. Where this wasmtime's
    bindings differ, the public call is used.
    """
    try:
        from wasmtime import _ffi as ffi
        from wasmtime._func import enter_wasm

        args = (ffi.wasmtime_val_t * params)(*(ffi.wasmtime_val_t(kind=ffi.WASMTIME_I32) for _ in range(params)))
        results = (ffi.wasmtime_val_t * 1)()
        call_c, raw = ffi.wasmtime_func_call, ctypes.byref(func._func)
        result_kind = func.type(store).results[0]
        wide = result_kind == wasmtime.ValType.i64()
    except (ImportError, AttributeError, IndexError):
        return lambda *values: int(func(store, *values))

    def call(*values: int) -> int:
        for i, value in enumerate(values):
            args[i].of.i32 = value
        with enter_wasm(store) as trap:
            error = call_c(store._context(), raw, args, params, results, 1, trap)
            if error:
                raise wasmtime.WasmtimeError._from_ptr(error)
        return int(results[0].of.i64 if wide else results[0].of.i32)

    return call


@dataclass(frozen=True)
class _Call:
    """The bounds of one run, kept together to word whatever stopped it."""

    store: wasmtime.Store
    budget: int
    memory: MemoryBudget
    wall_timeout_s: float

    def trapped(self, trap: wasmtime.Trap, phase: str) -> RunResult:
        """Map a trap to an outcome; `phase` names what ran: instantiation, alloc or the entry."""
        fuel = self.budget - self.store.get_fuel()
        if trap.trap_code == wasmtime.TrapCode.OUT_OF_FUEL:
            return RunResult(
                "out-of-fuel",
                fuel,
                None,
                f"{phase} used up its whole budget of {self.budget:,} fuel (fuel_limit x runway)",
            )
        if trap.trap_code == wasmtime.TrapCode.INTERRUPT:
            return RunResult(
                "timeout",
                fuel,
                None,
                f"{phase} was stopped at the wall-clock limit of {self.wall_timeout_s:g} s",
            )
        reason = _cause(trap.message)
        # memory.grow past the cap returns -1 instead of trapping; a module that cannot go on
        # without the memory (Rust's allocator aborts) traps next: the refusal is the cause.
        if self.memory.refused is not None:
            return RunResult(
                "memory",
                fuel,
                None,
                f"{phase} asked for {_memory_past_cap(self.memory)}, was refused, then trapped: {reason}",
            )
        return RunResult("trap", fuel, None, f"{phase} trapped: {reason}")


def _memory_past_cap(budget: MemoryBudget) -> str:
    return f"memory past max_memory_bytes ({budget.refused:,} bytes asked, cap {budget.cap:,})"


def _cause(text: str) -> str:
    """The root cause of a wasmtime error: its last line, without the `wasm trap:` prefix.

    wasmtime words errors as context, a backtrace, then "Caused by:" and the cause; the
    cause is what a reader can act on.
    """
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    cause = lines[-1] if lines else "unknown error"
    return bound(cause.removeprefix("wasm trap: "))


def _write_cache(cache_file: Path, payload: bytes) -> None:
    """The payload behind a magic and its digest, so a damaged entry is recognised when read."""
    cache_file.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(cache_file, _CACHE_MAGIC + hashlib.sha256(payload).digest() + payload)
