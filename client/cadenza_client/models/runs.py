"""The queue and what happened: actions, runs, events, and a test run's report."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import Field

from cadenza_client.models.base import Record
from cadenza_client.models.enums import ActionStatus, Outcome


class Action(Record):
    """One planned execution: an occurrence of a rule, or a one-off."""

    id: int
    rule_id: str | None
    rule_version: int | None
    key: str | None = Field(description="The idempotency key it was submitted with.")
    scheduled_at: datetime
    due_at: datetime
    status: ActionStatus
    reason: str | None = Field(description="Why it was skipped or cancelled.")
    attempt: int
    max_attempts: int
    priority: int
    created_at: datetime
    finished_at: datetime | None
    started_at: datetime | None = Field(
        None, description="When its current run started; until then it can be cancelled."
    )
    expires_at: datetime | None = Field(
        None, description="Expired instead of run if not started by then."
    )


class ActionList(Record):
    """The actions a backfill planned."""

    items: tuple[Action, ...]


class RunSummary(Record):
    """One attempt at an action, as lists show it."""

    id: int
    action_id: int
    rule_id: str | None
    attempt: int
    node: str
    runtime: str
    planned_at: datetime
    started_at: datetime
    finished_at: datetime
    outcome: Outcome
    duration_ms: float
    lateness_ms: float
    committed: bool = Field(description="False when its claim was lost: effects discarded.")


class ScriptOutput(Record):
    """What a script's run left: its result or error, and its (capped) output."""

    result: Any
    error: str | None
    error_line: int | None
    stdout: str
    stderr: str
    output_truncated: bool = Field(description="True when output or result were capped.")


class RunCall(Record):
    """One outbound call a run made (`ctx.http.request`): never its payload."""

    kind: str
    method: str
    host: str
    status: int | None
    duration_ms: float
    bytes_sent: int
    bytes_received: int
    error: str | None


class Run(RunSummary, ScriptOutput):
    """One attempt with its output, result, error and resources."""

    pid: int | None
    cpu_ms: float | None
    peak_memory_bytes: int | None
    fuel: int | None
    trace_id: str | None = Field(description="Its OpenTelemetry trace id, when traces are on.")
    calls: tuple[RunCall, ...] | None = Field(
        None, description="Its outbound calls in order (never their payloads)."
    )


class Event(Record):
    """What a script emitted, with its webhook delivery state."""

    id: int
    type: str
    payload: Any
    source: str
    rule_id: str | None
    action_id: int | None
    run_id: int | None
    created_at: datetime
    delivery_status: str
    delivery_attempts: int
    last_error: str | None


class EventFeed(Record):
    """A read of the event feed; read again with `after=next_cursor` for newer events."""

    items: tuple[Event, ...]
    next_cursor: str

    def continuation(self) -> str | None:
        """Where to read on, or None once a read came back empty (nothing newer yet)."""
        return self.next_cursor if self.items else None


class EmittedEvent(Record):
    """An event a test run would have emitted."""

    type: str
    payload: Any


class TestRun(ScriptOutput):
    """What a script did when run once without saving: nothing of it was applied."""

    __test__ = False  # not a pytest test class, despite its name

    status: Outcome
    events: tuple[EmittedEvent, ...]
    logs: tuple[str, ...]
    duration_ms: float
    cpu_s: float | None
    peak_memory_bytes: int | None
    kv_changes: dict[str, Any] = Field(description="What it would write; None: delete.")
