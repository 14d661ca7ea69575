"""The `python` runtime, engine side: RestrictedPython scripts, run in confined workers.

Each run goes to a worker bound to its tenant (`sandbox.warm`), which compiles the script
the first time (the bytecode then comes back, for the tenant's later workers) and runs it
(`sandbox.python.executor`). Python has no clock of its own inside a worker: the engine's
kill at the deadline ends a run that is out of time.
"""

from __future__ import annotations

from typing import ClassVar

from sandbox.cache import content_key
from sandbox.contract import RuntimeName
from sandbox.runtime_base import WorkerRuntime
from sandbox.source import decode_script


class PythonRuntime(WorkerRuntime):
    """`runtime("python")`: see `sandbox.Runtime` for the contract."""

    name: ClassVar[RuntimeName] = RuntimeName.PYTHON
    keeps_artifacts = True
    stops_itself = False

    def code(self, script: str | bytes) -> tuple[str, bytes]:
        source = decode_script(script)
        return content_key("python", source), source.encode()
