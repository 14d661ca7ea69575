"""The `wasm` runtime inside a worker: compile or load the module, instantiate, call `main`.

A module is compiled by the first worker of a tenant that needs it (under that run's limits)
and handed to the engine serialised, which gives it to the tenant's later workers: they only
load it. Each worker keeps the modules it loaded, linked to the `cadenza` ABI, for its next
runs. Every run gets a fresh store (memory limit, fuel, epoch deadline) and a fresh instance.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NoReturn

import wasmtime

from sandbox.errors import ScriptRejected
from sandbox.job import CodeForm, Job, Mode
from sandbox.results import json_report, value_report
from sandbox.wasm import abi, check, grow
from sandbox.wasm.engine import DeadlineTimer, engine_config, fuel_for, new_store
from sandbox.wasm.guest import GuestRun, detach, fuel_used
from sandbox.worker import Worker

#: A run's instance exports, resolved once (each `Instance.exports` call walks them all).
Exports = Mapping[str, Any]


class WasmExecutor:
    """Built in the zygote; every worker inherits the engine and the linker."""

    def __init__(self, timer: DeadlineTimer) -> None:
        self._engine = wasmtime.Engine(engine_config(for_tenants=True))
        self._linker = wasmtime.Linker(self._engine)
        abi.define(self._linker)
        self._timer = timer
        self._held: dict[str, wasmtime.InstancePre] = {}
        #: The last run's store, freed once its report is sent (freeing it takes time that the
        #: run should not wait for: docs/performance.md).
        self._spent: wasmtime.Store | None = None

    def serve(self, job: Job, worker: Worker) -> NoReturn:
        while True:
            worker.finish(self._attempt(job, worker))
            self._spent = None
            job = worker.next_job()

    def _attempt(self, job: Job, worker: Worker) -> dict[str, Any]:
        try:
            linked = self._load(job, worker)
        except ScriptRejected as exc:
            return {"status": "rejected", "error": exc.reason, "line": exc.line}
        if job.mode is Mode.CHECK:
            return {"status": "ok"}
        return self._run(linked, job, worker)

    def _load(self, job: Job, worker: Worker) -> wasmtime.InstancePre:
        if job.form is CodeForm.HELD:
            linked = self._held.get(job.key)
            if linked is None:
                raise ScriptRejected(f"the worker lost module {job.key}; run it again")
            return linked
        if job.form is CodeForm.ARTIFACT:
            module = self._deserialize(worker.blob or b"")
        else:
            module = check.compile_module(self._engine, worker.blob or b"")
            if job.mode is Mode.RUN:
                worker.artifact(bytes(module.serialize()))
        linked = self._linker.instantiate_pre(module)
        if job.mode is Mode.RUN:
            self._held[job.key] = linked
        return linked

    def _deserialize(self, artifact: bytes) -> wasmtime.Module:
        try:
            return wasmtime.Module.deserialize(self._engine, artifact)
        except wasmtime.WasmtimeError as exc:
            raise ScriptRejected(f"the compiled module does not load here: {exc}") from None

    def _run(self, linked: wasmtime.InstancePre, job: Job, worker: Worker) -> dict[str, Any]:
        store = self._spent = new_store(self._engine, job.limits.memory_bytes)
        fuel = fuel_for(job.limits)
        store.set_fuel(fuel)
        guest = GuestRun(job, worker, store)
        exports: Exports | None = None
        trap: BaseException | None = None
        self._timer.arm(self._engine, guest.started_s + job.limits.timeout_s)
        try:
            with guest:
                exports = linked.instantiate(store).exports(store)
                main = exports["main"]
                assert isinstance(main, wasmtime.Func)
                report = _result(guest, main(store))
        except Exception as exc:
            trap = detach(exc)
            status, error = guest.classify(exc, _memory_bytes(store, exports, exc))
            report = {"status": str(status), "error": error}
        finally:
            self._timer.disarm()
        if guest.stop is not None:
            report = {"status": str(guest.stop[0]), "error": guest.stop[1]}
        elif report["status"] != "ok" and _grow_refused(store, exports):
            limit = job.limits.memory_bytes
            report = {
                "status": "memory",
                "error": f"asked for more than its memory limit of {limit} bytes",
            }
        report["fuel"] = fuel_used(store, fuel, trap)
        report["peak_memory_bytes"] = _memory_bytes(store, exports, None)
        guest.close()
        return report


def _result(guest: GuestRun, value: Any) -> dict[str, Any]:
    limit_bytes = guest.limits.result_bytes
    if guest.result_json is not None:
        return json_report(guest.result_json, limit_bytes)
    return value_report(value, limit_bytes)


def _grow_refused(store: wasmtime.Store, exports: Exports | None) -> bool:
    """Whether a `memory.grow` of the run was refused (see `sandbox.wasm.grow`)."""
    flag = exports.get(grow.REFUSED_EXPORT) if exports else None
    return isinstance(flag, wasmtime.Global) and flag.value(store) == 1


def _memory_bytes(store: wasmtime.Store, exports: Exports | None, exc: Any) -> int:
    if exports is None:
        refused = exc is not None and "exceeds memory limits" in str(exc)
        return 1 << 62 if refused else 0
    memory = exports.get("memory")
    return memory.data_len(store) if isinstance(memory, wasmtime.Memory) else 0
