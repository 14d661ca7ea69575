"""The shared wasmtime engine: fuel + epoch interruption, a ticker, run threads, module cache.

One `Engine` serves every wasm and micropython run. Wall-clock limits are epochs: a ticker
thread advances the engine's epoch every `TICK_S`, and each store's deadline is its timeout in
ticks, so guest code stops within a tick of its deadline however it spends its time. The
ticker runs only while some run thread is busy: 500 wake-ups a second, each taking the GIL,
were most of an idle engine's CPU and slowed the event loop during python-only bursts. Runs
execute on a thread pool, never on the event loop. Compiled modules are cached in memory and,
if a cache directory is configured, serialised on disk under a key that includes the wasmtime
version and this engine configuration (a serialised module only loads into a matching engine).
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.metadata
import math
import queue
import threading
import time
from pathlib import Path
from typing import Any

import wasmtime

from sandbox.cache import content_key
from sandbox.contract import Limits

TICK_S = 0.002
#: Fuel granted per CPU second of the run's limit. Fuel is the deterministic backstop; the
#: epoch deadline is the real clock. Guests burn 0.6e9/s (a tight wasm loop) to ~5e9/s
#: (MicroPython's interpreter loop), so this is generous enough for the epoch to decide.
FUEL_PER_CPU_S = 10_000_000_000
MAX_WASM_STACK_BYTES = 512 * 1024
_CONFIG_FINGERPRINT = f"fuel+epoch;stack={MAX_WASM_STACK_BYTES};exceptions;v1"


def engine_config() -> wasmtime.Config:
    config = wasmtime.Config()
    config.consume_fuel = True
    config.epoch_interruption = True
    config.max_wasm_stack = MAX_WASM_STACK_BYTES
    config.wasm_exceptions = True  # the MicroPython build uses them
    config.wasm_threads = False
    return config


class WasmEngine:
    """Owns the engine, the epoch ticker, the run threads and the compiled-module cache."""

    def __init__(self, threads: int, cache_dir: Path | None) -> None:
        self.engine = wasmtime.Engine(engine_config())
        self.version = importlib.metadata.version("wasmtime")
        self._cache_dir = cache_dir
        self._modules: dict[str, wasmtime.Module] = {}
        self._run_threads = RunThreads(threads, "cadenza-wasm")
        self._stop = threading.Event()
        self._epoch_zero_s = time.monotonic()
        self._ticks = 0  # increments done so far: the engine's current epoch
        self._clock = threading.Lock()  # guards _ticks, _epoch_zero_s and _busy_threads
        self._busy_threads = 0
        self._busy = threading.Event()
        self._ticker = threading.Thread(target=self._tick, name="cadenza-epoch", daemon=True)
        self._ticker.start()

    def _tick(self) -> None:
        """While a run thread is busy, keep the epoch at (time since `_epoch_zero_s`) / TICK_S,
        catching up after late wake-ups: the epoch is a clock, and deadlines are instants on it
        (`deadline_ticks`). Idle, it sleeps until a run starts (`_busy`)."""
        while self._busy.wait() and not self._stop.wait(TICK_S):
            with self._clock:
                due = int((time.monotonic() - self._epoch_zero_s) / TICK_S)
                while self._ticks < due:
                    self.engine.increment_epoch()
                    self._ticks += 1

    def _on_run_thread(self, func, *args):  # type: ignore[no-untyped-def]
        """Call `func` with the ticker running. The clock is paused while nothing runs, so on
        the first busy thread it restarts from the current epoch (no catch-up storm)."""
        with self._clock:
            if self._busy_threads == 0:
                self._epoch_zero_s = time.monotonic() - self._ticks * TICK_S
                self._busy.set()
            self._busy_threads += 1
        try:
            return func(*args)
        finally:
            with self._clock:
                self._busy_threads -= 1
                if self._busy_threads == 0:
                    self._busy.clear()

    @property
    def is_ticking(self) -> bool:
        """Whether the epoch clock runs (some run thread is busy)."""
        return self._busy.is_set() and not self._stop.is_set()

    def close(self) -> None:
        """Wait for runs in progress (each ends by its own epoch deadline), then stop ticking."""
        self._run_threads.close()
        self._stop.set()
        self._busy.set()
        self._ticker.join()

    def deadline_ticks(self, deadline_s: float) -> int:
        """Ticks from the engine's current epoch to the instant `deadline_s` (monotonic),
        rounded up plus one, so a guest is never stopped early, even if the ticker is behind
        and about to catch up (and is at most ~2 ticks late). Called on a run thread."""
        with self._clock:
            due = math.ceil((deadline_s - self._epoch_zero_s) / TICK_S)
            return max(1, due - self._ticks + 1)

    def new_store(self, limits: Limits, deadline_s: float) -> tuple[wasmtime.Store, int]:
        """A fresh store for one run: memory/instance/table caps, fuel, and an epoch deadline
        at `deadline_s` (monotonic). Returns the store and the fuel it was given."""
        store = wasmtime.Store(self.engine)
        store.set_limits(
            memory_size=limits.memory_bytes,
            instances=1,
            memories=1,
            tables=4,
            table_elements=100_000,
        )
        fuel = limits.fuel or int(limits.effective_cpu_s * FUEL_PER_CPU_S)
        store.set_fuel(fuel)
        store.set_epoch_deadline(self.deadline_ticks(deadline_s))
        return store, fuel

    def module_key(self, wasm: bytes) -> str:
        return content_key("wasm-module", self.version, _CONFIG_FINGERPRINT, wasm)

    def cached(self, key: str) -> wasmtime.Module | None:
        """A compiled module from memory or the disk cache, or None."""
        module = self._modules.get(key)
        if module is None and self._cache_dir is not None:
            path = self._cache_dir / f"{key}.cwasm"
            with contextlib.suppress(wasmtime.WasmtimeError, OSError):
                if path.is_file():
                    module = wasmtime.Module.deserialize_file(self.engine, str(path))
                    self._modules[key] = module
        return module

    async def compile(self, key: str, wasm: bytes) -> wasmtime.Module:
        """Compile on a run thread (callers bound the input first) and cache the result."""
        module = self.cached(key)
        if module is None:
            module = await self.call(wasmtime.Module, self.engine, wasm)
            self._modules[key] = module
            if self._cache_dir is not None:
                self._store_on_disk(key, module)
        return module

    def _store_on_disk(self, key: str, module: wasmtime.Module) -> None:
        assert self._cache_dir is not None
        self._cache_dir.mkdir(parents=True, exist_ok=True)
        temporary = self._cache_dir / f"{key}.tmp"
        temporary.write_bytes(bytes(module.serialize()))
        temporary.replace(self._cache_dir / f"{key}.cwasm")

    async def call(self, func, *args):  # type: ignore[no-untyped-def]
        """Run blocking wasmtime work on a run thread, with the epoch ticking meanwhile."""
        return await self._run_threads.call(self._on_run_thread, func, *args)


class RunThreads:
    """Threads that run blocking calls for the event loop. A call goes out on a queue and its
    result comes back through `call_soon_threadsafe`: a round trip of 25-29 µs on this
    machine, against 38-51 µs through `loop.run_in_executor`, which chains a
    concurrent.futures Future to an asyncio one (uvloop, three alternations), and a wasm run's
    whole overhead is ~0.3 ms."""

    def __init__(self, count: int, name: str) -> None:
        self._jobs: queue.SimpleQueue[tuple[Any, ...] | None] = queue.SimpleQueue()
        self._closing = False
        self._threads = [
            threading.Thread(target=self._serve, name=f"{name}-{i}", daemon=True)
            for i in range(count)
        ]
        for thread in self._threads:
            thread.start()

    async def call(self, func, *args):  # type: ignore[no-untyped-def]
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        self._jobs.put((loop, future, func, args))
        return await future

    def _serve(self) -> None:
        while (job := self._jobs.get()) is not None:
            loop, future, func, args = job
            if self._closing:  # queued when the sandbox closed: never started
                outcome: tuple[Any, BaseException | None] = (None, asyncio.CancelledError())
            else:
                try:
                    outcome = (func(*args), None)
                except Exception as exc:  # the caller's to handle
                    outcome = (None, exc)
            with contextlib.suppress(RuntimeError):  # the caller's loop has closed
                loop.call_soon_threadsafe(_settle, future, *outcome)

    def close(self) -> None:
        """Let the calls already running finish (each ends by its own deadline), cancel those
        still queued, and end the threads."""
        self._closing = True
        for _ in self._threads:
            self._jobs.put(None)
        for thread in self._threads:
            thread.join()


def _settle(future: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    if future.cancelled():
        return
    if isinstance(error, asyncio.CancelledError):
        future.cancel()
    elif error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)
