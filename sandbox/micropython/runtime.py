"""The `micropython` runtime, engine side: MicroPython scripts, run in confined workers.

Each run goes to a worker bound to its tenant, which runs it in its interpreter instance, put
back as it was before any run (`sandbox.micropython.executor`). Checking a script runs its top
level there too, under the limits of the save that asked, never on the engine's time.
"""

from __future__ import annotations

from typing import ClassVar

from sandbox.cache import content_key
from sandbox.contract import RuntimeName
from sandbox.runtime_base import WorkerRuntime
from sandbox.source import decode_script

MAX_SCRIPT_BYTES = 48 * 1024


class MicroPythonRuntime(WorkerRuntime):
    """`runtime("micropython")`: see `sandbox.Runtime` for the contract."""

    name: ClassVar[RuntimeName] = RuntimeName.MICROPYTHON

    def code(self, script: str | bytes) -> tuple[str, bytes]:
        source = decode_script(script, MAX_SCRIPT_BYTES)
        return content_key("micropython", source), source.encode()
