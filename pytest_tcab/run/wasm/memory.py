"""Linear memories the host makes itself, so a `memory.grow` past the cap is seen and recorded.

wasmtime-py exposes no resource limiter callback: with `Store.set_limits(memory_size=...)` a
refused `memory.grow` just returns -1 to the module, and the trap that usually follows (an
allocator that aborts) says nothing about memory. wasmtime's C API does let the embedder create
every linear memory (`wasmtime_config_host_memory_creator_set`); a memory made here reserves its
whole address range up front (it never moves), opens pages as the module grows it, and refuses
any size past the run's cap, remembering the size that was asked for.

Every callback catches everything: an exception escaping a ctypes callback would leave wasmtime
reading an uninitialised result.
"""

from __future__ import annotations

import ctypes
import itertools
import mmap
from dataclasses import dataclass
from typing import Any

import wasmtime
from wasmtime import _ffi as ffi

_PROT_NONE = 0
_MAP_NORESERVE = 0x4000
"""Linux: reserve address space without committing swap for it; pages are opened as the module grows."""

_libc = ctypes.CDLL(None, use_errno=True)
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
_libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
_libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
_MAP_FAILED = ctypes.c_void_p(-1).value


@dataclass
class MemoryBudget:
    """The cap of one run, and the first size past it the module asked for (None: never)."""

    cap: int
    refused: int | None = None

    def refuse(self, size: int) -> None:
        if self.refused is None:
            self.refused = size


@dataclass
class _Memory:
    base: int
    size: int
    maximum: int
    reserved: int
    budget: MemoryBudget


class CappedMemories:
    """The memory creator of one engine: every memory it makes answers to the current budget.

    `budget` is set by the runner before each instantiation; the memories made then keep that
    budget for their whole life, so a later run's cap never applies to an earlier instance.
    """

    def __init__(self) -> None:
        self.budget = MemoryBudget(cap=0)
        self._memories: dict[int, _Memory] = {}
        self._ids = itertools.count(1)
        # The C side holds raw pointers to these callbacks: they live as long as the creator.
        self._get = ffi.wasmtime_memory_get_callback_t(self._get_memory)
        self._grow = ffi.wasmtime_memory_grow_callback_t(self._grow_memory)
        self._free = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(self._free_memory)
        self._new = ffi.wasmtime_new_memory_callback_t(self._new_memory)
        self._done = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(lambda _env: None)
        self._creator = ffi.wasmtime_memory_creator_t(None, self._new, self._done)

    def install(self, config: wasmtime.Config) -> None:
        """Make this the creator of every linear memory of engines built from `config`."""
        ffi.wasmtime_config_host_memory_creator_set(config.ptr(), ctypes.byref(self._creator))

    def _new_memory(self, _env: Any, _type: Any, minimum: int, maximum: int, reserved: int,
                    guard: int, out: Any) -> int:
        try:
            budget = self.budget
            if minimum > budget.cap:
                budget.refuse(minimum)
                return _error(f"the initial memory of {minimum:,} bytes is past the cap of {budget.cap:,} bytes")
            # Reserve everything the memory may ever use, so it never has to move.
            span = max(reserved, _pages(budget.cap), minimum)
            base = _libc.mmap(None, span + guard, _PROT_NONE, mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | _MAP_NORESERVE, -1, 0)
            if base is None or base == _MAP_FAILED:
                return _error(f"cannot reserve {span + guard:,} bytes of address space")
            if minimum and _libc.mprotect(base, minimum, mmap.PROT_READ | mmap.PROT_WRITE) != 0:
                _libc.munmap(base, span + guard)
                return _error(f"cannot open {minimum:,} bytes of memory")
            key = next(self._ids)
            self._memories[key] = _Memory(base, minimum, min(maximum, span), span + guard, budget)
            out[0].env = key
            out[0].get_memory = self._get
            out[0].grow_memory = self._grow
            out[0].finalizer = self._free
            return 0
        except BaseException as exc:  # noqa: BLE001 - nothing may escape into wasmtime
            return _error(f"cannot create a memory: {exc}")

    def _get_memory(self, env: int, size: Any, maximum: Any) -> int:
        memory = self._memories[env]
        size[0] = memory.size
        maximum[0] = memory.maximum
        return memory.base

    def _grow_memory(self, env: int, new_size: int) -> int:
        try:
            memory = self._memories[env]
            if new_size > memory.budget.cap:
                memory.budget.refuse(new_size)
                return _error(f"memory past the cap of {memory.budget.cap:,} bytes")
            if new_size > memory.maximum or _libc.mprotect(memory.base, new_size, mmap.PROT_READ | mmap.PROT_WRITE) != 0:
                return _error(f"cannot grow the memory to {new_size:,} bytes")
            memory.size = new_size
            return 0
        except BaseException as exc:  # noqa: BLE001 - nothing may escape into wasmtime
            return _error(f"cannot grow the memory: {exc}")

    def _free_memory(self, env: int) -> None:
        memory = self._memories.pop(env, None)
        if memory is not None:
            _libc.munmap(memory.base, memory.reserved)


def _pages(size: int) -> int:
    return -(-size // mmap.PAGESIZE) * mmap.PAGESIZE


def _error(message: str) -> int:
    """A `wasmtime_error_t*` handed to wasmtime, which owns and frees it."""
    pointer = ffi.wasmtime_error_new(message.encode())
    return ctypes.cast(pointer, ctypes.c_void_p).value or 0
