"""The `wasm` runtime, engine side: a tenant's own WebAssembly module, run in confined workers.

A module is checked (size cap here; WAT parsing, validation, compilation and the import check
in a fresh worker, under the limits of the save that asked) and compiled by the first worker
of each tenant that runs it; the serialised module comes back and the tenant's later workers
only load it (`sandbox.wasm.executor`). Each run gets a fresh store with memory limits, fuel
(CPU) and an epoch deadline (wall clock), and its own instance.
"""

from __future__ import annotations

from typing import ClassVar

from sandbox.cache import content_key
from sandbox.contract import Limits, RuntimeName
from sandbox.errors import ScriptRejected
from sandbox.pool import WorkerPool
from sandbox.runtime_base import WorkerRuntime


class WasmRuntime(WorkerRuntime):
    """`runtime("wasm")`: see `sandbox.Runtime` for the contract."""

    name: ClassVar[RuntimeName] = RuntimeName.WASM
    keeps_artifacts = True

    def __init__(self, pool: WorkerPool, compile_limits: Limits, max_module_bytes: int) -> None:
        super().__init__(pool, compile_limits)
        self._max_module_bytes = max_module_bytes

    def code(self, script: str | bytes) -> tuple[str, bytes]:
        data = script.encode() if isinstance(script, str) else bytes(script)
        if len(data) > self._max_module_bytes:
            limit = self._max_module_bytes
            raise ScriptRejected(f"the module is {len(data)} bytes; the limit is {limit} bytes")
        return content_key("wasm", data), data
