"""`Sandbox`: owns the worker processes, the wasmtime engine and the compile caches.

async with Sandbox(SandboxConfig()) as sandbox:
    outcome = await sandbox.runtime("python").run(script, context, Limits(), host)
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Protocol

from sandbox.cache import CompileCache
from sandbox.contract import HostApi, Limits, Outcome, RuntimeName, ScriptContext
from sandbox.errors import SandboxError
from sandbox.micropython_runtime import MicroPythonRuntime
from sandbox.pool import WorkerCounts, WorkerPool
from sandbox.python_runtime import PythonRuntime
from sandbox.warm import WarmPolicy
from sandbox.wasm_engine import WasmEngine
from sandbox.wasm_runtime import WasmRuntime

log = logging.getLogger("cadenza.sandbox")


@dataclass(frozen=True)
class SandboxConfig:
    """How the sandbox is provisioned (not per-run limits: those are `Limits`)."""

    #: Python workers kept forked and ready ahead of demand.
    max_workers: int = 4
    #: When a python worker warm for one tenant is recycled.
    warm: WarmPolicy = field(default_factory=WarmPolicy)
    #: Where compiled WebAssembly modules are kept between processes (None: memory only).
    cache_dir: Path | None = None
    #: Limits for compiling/validating a script (also bounds wasm compile time).
    compile_limits: Limits = field(
        default_factory=lambda: Limits(timeout_s=10.0, memory_bytes=512 * 1024 * 1024)
    )
    #: Largest accepted WebAssembly module.
    max_module_bytes: int = 4 * 1024 * 1024
    #: Which runtimes to start (python needs a zygote process; the wasm ones a wasmtime engine).
    runtimes: tuple[RuntimeName, ...] = tuple(RuntimeName)


class Runtime(Protocol):
    """One way of running scripts; every runtime keeps this exact contract."""

    name: RuntimeName

    async def validate(self, script: str | bytes) -> None:
        """Raise ScriptRejected (line + reason) unless the script compiles and may run.

        Compilation happens under bounded time and memory, outside the engine's own memory
        (python: in a worker; wasm: in a bounded subprocess), and is cached by content hash.
        """

    async def run(
        self, script: str | bytes, context: ScriptContext, limits: Limits, host: HostApi
    ) -> Outcome:
        """Run the script once. Never raises for anything the script does: a rejection, an
        exception, a timeout, a memory or output overflow or a crashed worker is the
        returned Outcome's status. Raises SandboxError only if the sandbox itself is broken
        (not started, zygote gone)."""


class Sandbox:
    """Async context manager owning every runtime's resources."""

    def __init__(self, config: SandboxConfig | None = None) -> None:
        self.config = config or SandboxConfig()
        self._pool: WorkerPool | None = None
        self._runtimes: dict[RuntimeName, Runtime] = {}
        self._wasm: WasmEngine | None = None

    async def __aenter__(self) -> Sandbox:
        wanted = set(self.config.runtimes)
        if RuntimeName.PYTHON in wanted:
            self._pool = WorkerPool(self.config.max_workers, self.config.warm)
            await self._pool.start()
            cache = CompileCache()
            self._runtimes[RuntimeName.PYTHON] = PythonRuntime(
                self._pool, cache, self.config.compile_limits
            )
        if wanted & {RuntimeName.WASM, RuntimeName.MICROPYTHON}:
            self._wasm = WasmEngine(self.config.max_workers, self.config.cache_dir)
        if self._wasm is not None and RuntimeName.WASM in wanted:
            self._runtimes[RuntimeName.WASM] = WasmRuntime(
                self._wasm, self.config.compile_limits, self.config.max_module_bytes
            )
        if self._wasm is not None and RuntimeName.MICROPYTHON in wanted:
            micropython = MicroPythonRuntime(self._wasm, self.config.compile_limits)
            await micropython.start()
            self._runtimes[RuntimeName.MICROPYTHON] = micropython
        missing = [name for name, present in self.capabilities().items() if not present]
        if missing:
            log.warning(
                "sandbox: isolation layers missing on this platform: %s", ", ".join(missing)
            )
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._pool is not None:
            await self._pool.stop()
            self._pool = None
        if self._wasm is not None:
            self._wasm.close()
            self._wasm = None
        self._runtimes.clear()

    def runtime(self, name: RuntimeName | str) -> Runtime:
        """The runtime called `name`; SandboxError if unknown or not started."""
        try:
            key = RuntimeName(name)
        except ValueError:
            known = ", ".join(RuntimeName)
            raise SandboxError(f"unknown runtime {name!r}; use one of {known}") from None
        if key not in self._runtimes:
            raise SandboxError(f"runtime {key} is not started; enter `async with Sandbox()` first")
        return self._runtimes[key]

    def worker_counts(self) -> WorkerCounts:
        """Python workers started and crashed so far (zeros without the python runtime)."""
        return self._pool.counts if self._pool else WorkerCounts()

    def capabilities(self) -> dict[str, bool]:
        """Which isolation layers are active (python worker layers + wasm engine settings)."""
        layers = dict(self._pool.layers) if self._pool else {}
        if self._wasm is not None:
            layers.update(wasm_fuel=True, wasm_epoch_deadline=True, wasm_memory_limit=True)
        return layers
