"""Running untrusted tenant scripts: three runtimes, hard limits, a narrow host API.

Imports nothing of Cadenza outside this package. Start with `Sandbox` and `Runtime.run`.
"""

from sandbox.contract import (
    Event,
    HostApi,
    Limits,
    Outcome,
    OutcomeStatus,
    RuntimeName,
    ScriptContext,
)
from sandbox.errors import SandboxError, ScriptRejected
from sandbox.manager import Runtime, Sandbox, SandboxConfig
from sandbox.text import clean_json, clean_outcome, clean_text, map_json, map_outcome

__all__ = [
    "Event",
    "HostApi",
    "Limits",
    "Outcome",
    "OutcomeStatus",
    "Runtime",
    "RuntimeName",
    "Sandbox",
    "SandboxConfig",
    "SandboxError",
    "ScriptContext",
    "ScriptRejected",
    "clean_json",
    "clean_outcome",
    "clean_text",
    "map_json",
    "map_outcome",
]
