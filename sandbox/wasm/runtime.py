"""The `wasm` runtime: a tenant's own WebAssembly module, importing only the `cadenza` ABI.

A module is checked once (size cap, then WAT parsing, validation, compilation and the
import/export check in a rlimited subprocess), compiled by the engine and cached by content
hash. Each run gets a fresh Store with memory limits, fuel (CPU) and an epoch deadline
(wall clock), and its own instance; nothing is shared between runs.
"""

from __future__ import annotations

import asyncio
import base64
import json
import sys
import time
from collections import OrderedDict
from pathlib import Path
from typing import Any

import wasmtime

from sandbox.wasm import abi as wasm_abi
from sandbox.cache import CompileCache, Compiled, content_key
from sandbox.contract import HostApi, Limits, Outcome, OutcomeStatus, RuntimeName, ScriptContext
from sandbox.errors import ScriptRejected
from sandbox.wasm.guest import GuestRun
from sandbox.hostcalls import HostSession
from sandbox.outcomes import Run
from sandbox.source import describe_seconds
from sandbox.wasm.engine import WasmEngine

_PACKAGE_ROOT = str(Path(__file__).resolve().parent.parent)
_MAX_CHECK_OUTPUT_BYTES = 64 * 1024 * 1024
#: Modules kept linked to the `cadenza` ABI, ready to instantiate (least recently run go first).
_MAX_LINKED = 256


class WasmRuntime:
    """`runtime("wasm")`: see `sandbox.Runtime` for the contract."""

    name = RuntimeName.WASM

    def __init__(self, engine: WasmEngine, compile_limits: Limits, max_module_bytes: int) -> None:
        self._engine = engine
        self._compile_limits = compile_limits
        self._max_module_bytes = max_module_bytes
        self._checked = CompileCache()
        self._linker = wasmtime.Linker(engine.engine)
        wasm_abi.define(self._linker)
        self._linked: OrderedDict[str, wasmtime.InstancePre] = OrderedDict()

    async def validate(self, script: str | bytes) -> None:
        await self._module(script)

    async def run(
        self, script: str | bytes, context: ScriptContext, limits: Limits, host: HostApi
    ) -> Outcome:
        run = Run(RuntimeName.WASM, limits)
        try:
            linked = await self._linked_module(script)
        except ScriptRejected as exc:
            return run.rejected(exc)
        run.started_s = time.monotonic()
        session = HostSession(host, limits)
        guest = GuestRun(run, session, context.to_json(), asyncio.get_running_loop())
        try:  # asyncio.timeout, not wait_for: no extra task and loop iteration per run
            async with asyncio.timeout(limits.timeout_s + 1):
                await self._engine.call(self._execute, linked, guest)
        except TimeoutError:
            return run.timed_out(session)
        return run.outcome(session)

    async def _linked_module(self, script: str | bytes) -> wasmtime.InstancePre:
        """The module linked to the ABI once (its imports resolved), so that a run only
        instantiates it: resolving imports per run cost as much as the rest of the run."""
        data = _as_bytes(script, self._max_module_bytes)
        key = content_key("wasm-input", data)
        linked = self._linked.get(key)
        if linked is None:
            linked = self._linker.instantiate_pre(await self._module(data, key))
            self._linked[key] = linked
            while len(self._linked) > _MAX_LINKED:
                self._linked.popitem(last=False)
        self._linked.move_to_end(key)
        return linked

    async def _module(self, script: str | bytes, key: str | None = None) -> wasmtime.Module:
        data = _as_bytes(script, self._max_module_bytes)
        key = key or content_key("wasm-input", data)
        entry = self._checked.get(key)
        if entry is None:
            entry = await self._check(data)
            self._checked.put(key, entry)
        if entry.artifact is None:
            raise ScriptRejected(entry.reason or "the module was rejected", entry.line)
        return await self._engine.compile(self._engine.module_key(entry.artifact), entry.artifact)

    async def _check(self, data: bytes) -> Compiled:
        """Run `sandbox.wasm.check` on the input under the compile limits."""
        limits = self._compile_limits
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "sandbox.wasm.check",
            str(max(1, round(limits.effective_cpu_s))), str(limits.memory_bytes),
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL, env={"PYTHONPATH": _PACKAGE_ROOT}, cwd="/",
        )  # fmt: skip
        try:
            out, _ = await asyncio.wait_for(process.communicate(data), limits.timeout_s)
        except TimeoutError:
            process.kill()
            await process.wait()
            took = describe_seconds(limits.timeout_s)
            return Compiled(reason=f"compiling the module took longer than {took}")
        try:
            report = json.loads(out[:_MAX_CHECK_OUTPUT_BYTES])
        except ValueError:
            return Compiled(
                reason=f"compiling the module failed (checker exit {process.returncode})"
            )
        if "wasm" in report:
            return Compiled(artifact=base64.b64decode(report["wasm"]))
        return Compiled(reason=str(report.get("error")), line=report.get("line"))

    def _execute(self, linked: wasmtime.InstancePre, guest: GuestRun) -> None:
        """On a run thread: instantiate into a fresh store and call `main`."""
        limits, run = guest.limits, guest.run
        store, fuel = self._engine.new_store(limits, guest.deadline_s)
        cpu_start_s = time.thread_time()
        instance: wasmtime.Instance | None = None
        with guest:
            try:
                instance = linked.instantiate(store)
                main = instance.exports(store)["main"]
                assert isinstance(main, wasmtime.Func)
                value = main(store)
                run.status = OutcomeStatus.OK
                run.result = json.loads(guest.result_json) if guest.result_json else value
            except Exception as exc:
                run.status, run.error = guest.classify(exc, _memory_bytes(store, instance, exc))
        run.fuel = fuel - store.get_fuel()
        run.cpu_s = time.thread_time() - cpu_start_s
        run.peak_memory_bytes = _memory_bytes(store, instance, None)
        run.set_output(guest.stdout.decode("utf-8", "replace"), run.truncated)


def _as_bytes(script: str | bytes, max_bytes: int) -> bytes:
    data = script.encode() if isinstance(script, str) else bytes(script)
    if len(data) > max_bytes:
        raise ScriptRejected(f"the module is {len(data)} bytes; the limit is {max_bytes} bytes")
    return data


def _memory_bytes(store: wasmtime.Store, instance: wasmtime.Instance | None, exc: Any) -> int:
    if instance is None:
        return 1 << 62 if exc is not None and "exceeds memory limits" in str(exc) else 0
    memory = instance.exports(store).get("memory")
    return memory.data_len(store) if isinstance(memory, wasmtime.Memory) else 0
