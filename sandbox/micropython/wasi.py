"""The interpreter's WASI: its arguments and a clock, and nothing else.

wasmtime's own WASI serves file and stream calls on a thread pool it starts when first needed.
A confined worker can start no thread (seccomp, and RLIMIT_NPROC under its own uid), and the
interpreter writes a traceback to stderr when an exception escapes the prelude (a heap too
full to report a `MemoryError`), which then aborted the whole worker. It needs no more than
this: `argv` (the boot code), the clocks, and answers that say no file is open. Writes are
counted and dropped (`print` travels over the host-call channel, capped), reads find nothing,
every path is refused, sleeping is refused (a sleeping guest would not see its epoch
deadline), and `proc_exit` ends the instance.
"""

from __future__ import annotations

import struct
import time
from collections.abc import Callable

import wasmtime

from sandbox.micropython.memory import GuestMemory

MODULE = "wasi_snapshot_preview1"
_SUCCESS, _BADF, _NOTSUP = 0, 8, 58
_U32, _U64 = struct.Struct("<I"), struct.Struct("<Q")
#: Most buffers one write may name (the interpreter writes a few at a time).
_MAX_IOVECS = 1024
_CLOCKS: dict[int, Callable[[], int]] = {
    0: time.time_ns,
    1: time.monotonic_ns,
    2: time.process_time_ns,
    3: time.thread_time_ns,
}


class WasiExit(Exception):
    """The guest called `proc_exit`."""

    def __init__(self, code: int) -> None:
        super().__init__(f"exit code {code}")
        self.code = code


def define(linker: wasmtime.Linker, module: wasmtime.Module, argv: list[str]) -> None:
    """Define every WASI function `module` imports; those not served answer EBADF."""
    served = _served([arg.encode() + b"\0" for arg in argv])
    for item in module.imports:
        if item.module != MODULE or not isinstance(item.type, wasmtime.FuncType):
            continue
        name = item.name or ""
        func = served.get(name) or _answer(_NOTSUP if name == "poll_oneoff" else _BADF)
        linker.define_func(MODULE, name, item.type, func, access_caller=name in served)


def _served(args: list[bytes]) -> dict[str, Callable[..., int]]:
    return {
        "args_sizes_get": _sizes(args),
        "args_get": _strings(args),
        "environ_sizes_get": _sizes([]),
        "environ_get": _strings([]),
        "clock_time_get": _clock_time_get,
        "fd_write": _fd_write,
        "fd_read": _fd_read,
        "proc_exit": _proc_exit,
        "sched_yield": lambda caller: _SUCCESS,
    }


def _memory(caller: wasmtime.Caller) -> GuestMemory:
    memory = caller.get("memory")
    if not isinstance(memory, wasmtime.Memory):
        raise wasmtime.WasmtimeError("the interpreter exports no memory")
    return GuestMemory(memory, caller)


def _sizes(items: list[bytes]) -> Callable[..., int]:
    def sizes(caller: wasmtime.Caller, count_ptr: int, size_ptr: int) -> int:
        memory = _memory(caller)
        memory.write(count_ptr, _U32.pack(len(items)))
        memory.write(size_ptr, _U32.pack(sum(len(item) for item in items)))
        return _SUCCESS

    return sizes


def _strings(items: list[bytes]) -> Callable[..., int]:
    def strings(caller: wasmtime.Caller, pointers_ptr: int, buffer_ptr: int) -> int:
        memory = _memory(caller)
        for index, item in enumerate(items):
            memory.write(pointers_ptr + 4 * index, _U32.pack(buffer_ptr))
            memory.write(buffer_ptr, item)
            buffer_ptr += len(item)
        return _SUCCESS

    return strings


def _clock_time_get(caller: wasmtime.Caller, clock: int, _precision: int, out_ptr: int) -> int:
    read = _CLOCKS.get(clock)
    if read is None:
        return _NOTSUP
    _memory(caller).write(out_ptr, _U64.pack(read()))
    return _SUCCESS


def _fd_write(caller: wasmtime.Caller, fd: int, iovs: int, count: int, out_ptr: int) -> int:
    if fd not in (1, 2) or not 0 <= count <= _MAX_IOVECS:
        return _BADF
    memory = _memory(caller)
    total = sum(_U32.unpack(memory.read(iovs + 8 * i + 4, 4))[0] for i in range(count))
    memory.write(out_ptr, _U32.pack(total & 0xFFFFFFFF))
    return _SUCCESS


def _fd_read(caller: wasmtime.Caller, fd: int, _iovs: int, _count: int, out_ptr: int) -> int:
    if fd != 0:
        return _BADF
    _memory(caller).write(out_ptr, _U32.pack(0))  # end of input
    return _SUCCESS


def _proc_exit(caller: wasmtime.Caller, code: int) -> None:
    raise WasiExit(code)


def _answer(errno: int) -> Callable[..., int]:
    return lambda *_: errno
