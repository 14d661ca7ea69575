"""The records every runtime shares: what a run may use, what it is told, what came of it."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any, Protocol

MIB = 1024 * 1024


class RuntimeName(StrEnum):
    """How a script executes; the values are the API/database strings."""

    #: RestrictedPython in a fresh, locked-down OS process.
    PYTHON = "python"
    #: MicroPython compiled to WASI, inside wasmtime.
    MICROPYTHON = "micropython"
    #: A tenant-supplied WebAssembly module importing only the `cadenza` host API.
    WASM = "wasm"


class OutcomeStatus(StrEnum):
    """How a run ended; the values are the `runs.outcome` strings."""

    #: `main(ctx)` returned a JSON value within every limit.
    OK = "ok"
    #: The script raised (or trapped); `error` and `error_line` say where.
    ERROR = "error"
    #: The wall-clock, CPU or fuel limit stopped it.
    TIMEOUT = "timeout"
    #: The memory limit stopped it.
    MEMORY = "memory"
    #: It printed, returned, logged or emitted more than allowed, or made too many host calls.
    OUTPUT_LIMIT = "output_limit"
    #: It was stopped from outside (the sandbox shut down under it).
    KILLED = "killed"
    #: Its worker died without reporting (a signal, a native crash).
    CRASHED = "crashed"
    #: It never ran: it does not compile or validate.
    REJECTED = "rejected"


@dataclass(frozen=True)
class Limits:
    """What one run may use; the engine builds it from the rule, capped by the tenant's quota."""

    timeout_s: float = 5.0
    #: CPU seconds; None means the same as `timeout_s`.
    cpu_s: float | None = None
    memory_bytes: int = 128 * MIB
    #: Captured stdout + stderr (print) per run.
    output_bytes: int = 64 * 1024
    #: The JSON-encoded return value.
    result_bytes: int = 64 * 1024
    #: kv and emit calls per run (log calls count against `output_bytes` instead).
    host_calls: int = 1000
    key_bytes: int = 256
    value_bytes: int = 64 * 1024
    events: int = 100
    #: WebAssembly fuel; None derives it from the CPU limit.
    fuel: int | None = None

    def __post_init__(self) -> None:
        numbers = {k: v for k, v in vars(self).items() if v is not None}
        bad = [name for name, value in numbers.items() if value <= 0]
        if bad:
            raise ValueError(f"Limits: {', '.join(bad)} must be positive")

    @property
    def effective_cpu_s(self) -> float:
        """The CPU budget actually enforced."""
        return self.timeout_s if self.cpu_s is None else min(self.cpu_s, self.timeout_s)


@dataclass(frozen=True)
class ScriptContext:
    """What a script is told about the run (`ctx` in the script)."""

    tenant_id: str
    rule_id: str | None
    rule_name: str | None
    scheduled_at: datetime
    attempt: int
    params: dict[str, Any]
    occurrence_id: str

    def to_json(self) -> dict[str, Any]:
        """The JSON shape handed to every runtime (tenant id deliberately left out)."""
        return {
            "scheduled_at": self.scheduled_at.isoformat(),
            "attempt": self.attempt,
            "rule": {"id": self.rule_id, "name": self.rule_name},
            "params": self.params,
            "occurrence_id": self.occurrence_id,
        }


class HostApi(Protocol):
    """The engine's side of the host API, already scoped to one tenant.

    A method refuses a request it cannot serve (a key its store does not accept, say) by
    raising `ValueError`: the script receives the message as an error it can catch, and the
    run goes on. Any other exception is an engine fault.
    """

    def begin(self) -> None:
        """The worker has taken the job: the run's time limit counts from now (a call made
        on the script's behalf must end before it)."""

    async def kv_get(self, key: str) -> Any | None: ...
    async def kv_set(self, key: str, value: Any) -> None: ...
    async def kv_delete(self, key: str) -> None: ...
    async def kv_keys(self, prefix: str) -> list[str]: ...
    async def kv_incr(self, key: str, by: int | float) -> None:
        """Add `by` to the key's number when the run's writes commit, whatever it is then."""

    async def kv_set_if(self, key: str, expected: Any, value: Any) -> bool:
        """Set the key to `value` if it holds `expected` (None: absent); whether it did."""

    async def secret_get(self, name: str) -> str | None:
        """The value of the tenant's secret `name` (None: no such secret). The engine takes
        every value it gave out of what the run leaves behind."""

    async def http_request(
        self, method: str, url: str, headers: dict[str, str], body: str | None
    ) -> dict[str, Any]:
        """Make an HTTP request for the script: `{"status", "headers", "body"}`."""

    async def capability_call(self, name: str, args: Any) -> Any:
        """Call capability `name` of the embedding product with JSON `args`; its JSON answer."""

    async def schedule(self, run_at: str, params: dict[str, Any] | None, key: str | None) -> str:
        """Plan a one-off action of the tenant at `run_at` (ISO 8601 with an offset), committed
        with the run's effects; its key."""


@dataclass(frozen=True)
class Event:
    """One event a script emitted; the engine stores it in the outbox."""

    type: str
    payload: Any


@dataclass(frozen=True)
class Outcome:
    """Exactly what happened in one run. A failing script is an Outcome, never an exception."""

    status: OutcomeStatus
    result: Any = None
    error: str | None = None
    error_line: int | None = None
    stdout: str = ""
    stderr: str = ""
    output_truncated: bool = False
    events: tuple[Event, ...] = ()
    logs: tuple[str, ...] = ()
    duration_s: float = 0.0
    cpu_s: float | None = None
    peak_memory_bytes: int | None = None
    fuel: int | None = None
    pid: int | None = None
    host_calls: int = 0
    runtime: RuntimeName | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (events as objects, enums as strings, durations also in ms)."""
        data = asdict(self)
        data["status"] = str(self.status)
        data["runtime"] = str(self.runtime) if self.runtime else None
        data["events"] = [{"type": e.type, "payload": e.payload} for e in self.events]
        data["logs"] = list(self.logs)
        data["duration_ms"] = round(self.duration_s * 1000, 3)
        return data
