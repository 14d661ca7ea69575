"""`Sandbox`: owns the worker processes (through their zygote) and each runtime's caches.

async with Sandbox(SandboxConfig()) as sandbox:
    outcome = await sandbox.runtime("python").run(script, context, Limits(), host)
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Protocol

from sandbox.contract import HostApi, Limits, Outcome, RuntimeName, ScriptContext
from sandbox.errors import SandboxError
from sandbox.micropython.runtime import MicroPythonRuntime
from sandbox.pool import WorkerCounts, WorkerPool
from sandbox.python.runtime import PythonRuntime
from sandbox.warm import WarmPolicy
from sandbox.wasm.runtime import WasmRuntime

log = logging.getLogger("cadenza.sandbox")


@dataclass(frozen=True)
class SandboxConfig:
    """How the sandbox is provisioned (not per-run limits: those are `Limits`)."""

    #: Workers kept forked and ready ahead of demand.
    max_workers: int = 4
    #: When a worker warm for one tenant is recycled.
    warm: WarmPolicy = field(default_factory=WarmPolicy)
    #: Where the compiled MicroPython interpreter is kept between processes (None: compiled
    #: at every start, which takes seconds).
    cache_dir: Path | None = None
    #: Limits for checking a script when the save gives none (a save's own time limit, when
    #: given, is used if lower).
    compile_limits: Limits = field(
        default_factory=lambda: Limits(timeout_s=10.0, memory_bytes=512 * 1024 * 1024)
    )
    #: Largest accepted WebAssembly module.
    max_module_bytes: int = 4 * 1024 * 1024
    #: Which runtimes to start (the zygote loads only what these need).
    runtimes: tuple[RuntimeName, ...] = tuple(RuntimeName)
    #: Start the zygote when the first worker is wanted rather than on entry: for a process
    #: that runs scripts seldom (an API process: checks on save, test runs), whose start then
    #: costs no zygote and whose idle life holds no workers.
    on_demand: bool = False


class Runtime(Protocol):
    """One way of running scripts; every runtime keeps this exact contract."""

    @property
    def name(self) -> RuntimeName:
        """Which runtime this is (a class constant of each implementation)."""

    async def validate(self, script: str | bytes, limits: Limits | None = None) -> None:
        """Raise ScriptRejected (line + reason) unless the script compiles and may run.

        Checking happens in a fresh worker process within `limits` (the save's: its time
        limit, if lower than the sandbox's compile limits), never in the engine's process;
        the verdict is cached by content hash.
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

    async def __aenter__(self) -> Sandbox:
        config = self.config
        wanted = tuple(RuntimeName(name) for name in config.runtimes)
        pool = WorkerPool(
            config.max_workers, config.warm, wanted, config.cache_dir, config.on_demand
        )
        if not config.on_demand:
            await pool.start()
        self._pool = pool
        limits = config.compile_limits
        found: dict[RuntimeName, Runtime] = {
            RuntimeName.PYTHON: PythonRuntime(pool, limits),
            RuntimeName.MICROPYTHON: MicroPythonRuntime(pool, limits),
            RuntimeName.WASM: WasmRuntime(pool, limits, config.max_module_bytes),
        }
        self._runtimes = {name: found[name] for name in wanted}
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

    @property
    def zygote_pid(self) -> int | None:
        """The zygote's process id (its children are the workers), for measurements."""
        return self._pool.zygote_pid if self._pool else None

    def worker_counts(self) -> WorkerCounts:
        """Workers started and crashed so far (zeros before the sandbox starts)."""
        return self._pool.counts if self._pool else WorkerCounts()

    def capabilities(self) -> dict[str, bool]:
        """Which isolation layers are active (the workers' layers + the wasm store's)."""
        layers = dict(self._pool.layers) if self._pool else {}
        if set(self._runtimes) & {RuntimeName.WASM, RuntimeName.MICROPYTHON}:
            layers.update(wasm_fuel=True, wasm_epoch_deadline=True, wasm_memory_limit=True)
        return layers
