"""The interpreter's WASI: wasmtime's, with no directory, no environment, and three changes.

wasmtime's WASI serves stream calls on a thread pool it starts when first needed. A confined
worker can start no thread (seccomp, and RLIMIT_NPROC under its own uid), and the interpreter
writes a traceback to stderr when an exception escapes the prelude (a heap too full to report a
`MemoryError`), which then aborted the whole worker. So writes to stdout and stderr are counted
and dropped here (`print` travels over the host-call channel, capped), reads find nothing, and
sleeping is refused (a sleeping guest would not see its epoch deadline). Everything else
(arguments, clocks, the absence of files) is wasmtime's own, which costs no call into Python.
"""

from __future__ import annotations

import struct
from collections.abc import Callable

import wasmtime

from sandbox.micropython.memory import GuestMemory

MODULE = "wasi_snapshot_preview1"
_SUCCESS, _BADF, _NOTSUP = 0, 8, 58
_U32 = struct.Struct("<I")
#: Most buffers one write may name (the interpreter passes a few at a time).
_MAX_IOVECS = 1024
_I32 = wasmtime.ValType.i32()


def define(linker: wasmtime.Linker) -> None:
    """wasmtime's WASI, with the three functions of the module docstring replaced."""
    linker.allow_shadowing = True
    linker.define_wasi()
    four = wasmtime.FuncType([_I32] * 4, [_I32])
    linker.define_func(MODULE, "fd_write", four, _fd_write, access_caller=True)
    linker.define_func(MODULE, "fd_read", four, _fd_read, access_caller=True)
    linker.define_func(MODULE, "poll_oneoff", four, _refused(_NOTSUP))


def config(argv: list[str]) -> wasmtime.WasiConfig:
    """argv and nothing else: no environment, no preopened directory, no stdio."""
    wasi = wasmtime.WasiConfig()
    wasi.argv = argv
    return wasi  # a new WasiConfig has no environment (setting `env = []` is a wasted call)


def _memory(caller: wasmtime.Caller) -> GuestMemory:
    memory = caller.get("memory")
    if not isinstance(memory, wasmtime.Memory):
        raise wasmtime.WasmtimeError("the interpreter exports no memory")
    return GuestMemory(memory, caller)


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


def _refused(errno: int) -> Callable[..., int]:
    return lambda *_: errno
