"""What the zygote loads once, before it forks: every runtime's worker-side executor.

Workers inherit all of it copy-on-write: the python runtime's builtins and module views, the
wasmtime engines and the MicroPython interpreter, compiled once (or loaded from the cache
directory) and shared read-only. Modules that CPython imports lazily are imported here too:
a confined worker can open no file, so `größe = 3` (which needs `unicodedata` to compile),
`datetime.strptime` or `"x".encode("cp1252")` would otherwise fail inside it.
"""

from __future__ import annotations

import contextlib
import fcntl
import importlib
import os
import pkgutil
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from sandbox.contract import RuntimeName
from sandbox.worker import Executor

_LAZY_MODULES = ("_strptime", "unicodedata", "stringprep")
_F_GET_SEALS, _F_SEAL_WRITE = 1034, 0x0008


@dataclass(frozen=True)
class Executors:
    by_runtime: Mapping[RuntimeName, Executor]
    #: Descriptors a worker keeps: sealed, read-only memory images of trusted modules.
    shared_fds: frozenset[int]
    #: Starts the threads a worker needs (before it is confined).
    start_threads: Callable[[], None]

    @classmethod
    def load(cls, runtimes: Iterable[str], cache_dir: Path | None) -> Executors:
        """Build the executors of `runtimes` (only what they need is imported)."""
        wanted = {RuntimeName(name) for name in runtimes}
        preload_lazy_modules()
        by_runtime: dict[RuntimeName, Executor] = {}
        start_threads: Callable[[], None] = lambda: None  # noqa: E731
        if RuntimeName.PYTHON in wanted:
            from sandbox.python.executor import PythonExecutor

            by_runtime[RuntimeName.PYTHON] = PythonExecutor()
        if wanted & {RuntimeName.WASM, RuntimeName.MICROPYTHON}:
            from sandbox.wasm.engine import DeadlineTimer

            timer = DeadlineTimer()
            start_threads = timer.start
            by_runtime.update(_wasm_executors(wanted, timer, cache_dir))
        return cls(by_runtime, _sealed(_open_fds()), start_threads)


def _wasm_executors(
    wanted: set[RuntimeName], timer: object, cache_dir: Path | None
) -> dict[RuntimeName, Executor]:
    from sandbox.micropython.executor import MicroPythonExecutor
    from sandbox.wasm.engine import DeadlineTimer
    from sandbox.wasm.executor import WasmExecutor

    assert isinstance(timer, DeadlineTimer)
    found: dict[RuntimeName, Executor] = {}
    if RuntimeName.WASM in wanted:
        found[RuntimeName.WASM] = WasmExecutor(timer)
    if RuntimeName.MICROPYTHON in wanted:
        found[RuntimeName.MICROPYTHON] = MicroPythonExecutor.load(timer, cache_dir)
    return found


def preload_lazy_modules() -> None:
    """Import what the interpreter would otherwise import from disk in the middle of a run."""
    for name in _LAZY_MODULES:
        importlib.import_module(name)
    import encodings

    for module in pkgutil.iter_modules(encodings.__path__):
        with contextlib.suppress(ImportError):  # Windows-only codecs
            importlib.import_module(f"encodings.{module.name}")


def _open_fds() -> set[int]:
    return {int(fd) for fd in os.listdir("/proc/self/fd")}


def _sealed(fds: set[int]) -> frozenset[int]:
    """The descriptors among `fds` that nobody can write to (the sealed memfds wasmtime
    keeps compiled modules' memory images in); anything else is closed in a worker."""
    kept = set()
    for fd in fds:
        with contextlib.suppress(OSError):
            if fcntl.fcntl(fd, _F_GET_SEALS) & _F_SEAL_WRITE:
                kept.add(fd)
    return frozenset(kept)
