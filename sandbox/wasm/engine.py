"""wasmtime in a worker process: engine configuration, stores, and the epoch deadline timer.

Every wasm and micropython run happens in a worker (never in the engine's process), on its
main thread. Three layers bound a run there: the store's memory limit, fuel (a deterministic
CPU bound) and an epoch deadline (the wall clock): `DeadlineTimer`, a thread started before the
worker is confined, advances the engine's epoch once, at the run's deadline, so a store made
with `new_store` traps at its next epoch check after it. The engine's kill of the worker at
the deadline (plus a grace) is the outer layer.

Two engine configurations. Tenant modules get no copy-on-write memory images (making one needs
a memfd, which a confined worker may not create; their data segments are copied instead) and
only the proposals `sandbox.wasm.grow` can rewrite; the MicroPython interpreter, loaded once in
the zygote, keeps its image in a sealed memfd the workers inherit, and uses exceptions. Both
compile on one thread: the workers cannot start threads.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import threading
import time
from pathlib import Path

import wasmtime

from sandbox.cache import content_key
from sandbox.contract import Limits

#: Fuel granted per CPU second of the run's limit. Fuel is the deterministic backstop; the
#: epoch deadline is the real clock, so fuel must outlast it on any machine. MicroPython's
#: `while True: pass` burnt 10.8e9 a second on a fast hour of this VM (at 1e10 it was stopped
#: by fuel at 0.46 s of a 0.5 s limit, blamed on the CPU limit); this leaves ten times that.
FUEL_PER_CPU_S = 100_000_000_000
MAX_WASM_STACK_BYTES = 512 * 1024
VERSION = importlib.metadata.version("wasmtime")


#: Proposals tenant modules may not use (off by default or not, so that the set is fixed).
_NOT_FOR_TENANTS = (
    "wasm_exceptions", "wasm_gc", "wasm_function_references", "wasm_memory64",
    "wasm_multi_memory", "wasm_relaxed_simd", "wasm_wide_arithmetic", "wasm_stack_switching",
    "wasm_custom_page_sizes", "wasm_threads",
)  # fmt: skip


def engine_config(*, for_tenants: bool) -> wasmtime.Config:
    """The tenant modules' engine (`for_tenants`) or the MicroPython interpreter's."""
    config = wasmtime.Config()
    config.consume_fuel = True
    config.epoch_interruption = True
    config.max_wasm_stack = MAX_WASM_STACK_BYTES
    config.parallel_compilation = False
    config.wasm_threads = False
    config.memory_init_cow = not for_tenants
    config.wasm_exceptions = not for_tenants  # the MicroPython build uses them
    for proposal in _NOT_FOR_TENANTS if for_tenants else ():
        setattr(config, proposal, False)
    return config


def fingerprint(*, for_tenants: bool) -> str:
    """What a compiled module depends on besides its bytes: part of every cache key."""
    return f"wasmtime {VERSION};fuel+epoch;stack={MAX_WASM_STACK_BYTES};tenants={for_tenants};v2"


def compiled_module(
    engine: wasmtime.Engine, wasm: bytes, cache_dir: Path | None
) -> wasmtime.Module:
    """A trusted module (the MicroPython interpreter) compiled for `engine`, from `cache_dir`
    when it holds it (keyed by content, wasmtime version and configuration: a serialised module
    only loads into a matching engine), else compiled and stored there. Never for tenant code:
    deserialising trusts its input."""
    key = content_key("trusted-module", fingerprint(for_tenants=False), wasm)
    path = cache_dir / f"{key}.cwasm" if cache_dir else None
    if path is not None and path.is_file():
        with contextlib.suppress(wasmtime.WasmtimeError):
            return wasmtime.Module.deserialize(engine, path.read_bytes())
    module = wasmtime.Module(engine, wasm)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_suffix(f".{time.monotonic_ns()}.tmp")
        temporary.write_bytes(bytes(module.serialize()))
        temporary.replace(path)
    return module


def new_store(engine: wasmtime.Engine, memory_bytes: int) -> wasmtime.Store:
    """A fresh store for one run: memory/instance/table caps, and an epoch deadline at the
    engine's next epoch (the timer advances it only at an armed deadline)."""
    store = wasmtime.Store(engine)
    store.set_limits(
        memory_size=memory_bytes, instances=1, memories=1, tables=4, table_elements=100_000
    )
    store.set_epoch_deadline(1)
    return store


def fuel_for(limits: Limits) -> int:
    return limits.fuel or int(limits.effective_cpu_s * FUEL_PER_CPU_S)


class DeadlineTimer:
    """One thread per worker that advances an engine's epoch once, at the armed deadline.

    It sleeps until the deadline and is woken only when a deadline moves earlier, so a warm
    worker pays no thread switch per run; `disarm` under the same lock as the increment
    means a run that ended can never interrupt the next one."""

    def __init__(self) -> None:
        self._lock = threading.Condition()
        self._engine: wasmtime.Engine | None = None
        self._deadline_s = 0.0
        self._sleeping_until_s: float | None = None

    def start(self) -> None:
        threading.Thread(target=self._serve, name="cadenza-deadline", daemon=True).start()

    def arm(self, engine: wasmtime.Engine, deadline_s: float) -> None:
        """Interrupt `engine`'s guests at `deadline_s` (monotonic) unless disarmed first."""
        with self._lock:
            self._engine, self._deadline_s = engine, deadline_s
            if self._sleeping_until_s is None or deadline_s < self._sleeping_until_s:
                self._lock.notify()

    def disarm(self) -> None:
        with self._lock:
            self._engine = None

    def _serve(self) -> None:
        with self._lock:
            while True:
                if self._engine is None:
                    self._sleeping_until_s = None
                    self._lock.wait()
                    continue
                remaining_s = self._deadline_s - time.monotonic()
                if remaining_s > 0:
                    self._sleeping_until_s = self._deadline_s
                    self._lock.wait(remaining_s)
                    continue
                self._engine.increment_epoch()
                self._engine = None
