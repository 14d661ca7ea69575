"""Runs: one attempt at an action; the list shows summaries, one run its output and error."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import Field

from api.schemas.common import Public
from sandbox import OutcomeStatus


class RunSummary(Public):
    id: int
    action_id: int
    rule_id: str | None
    attempt: int
    node: str
    runtime: str
    planned_at: datetime
    started_at: datetime
    finished_at: datetime
    outcome: OutcomeStatus
    duration_ms: float
    lateness_ms: float = Field(description="How late the run started after its planned time.")
    committed: bool = Field(description="False when its claim was lost: effects discarded.")


class RunCallPublic(Public):
    kind: str = Field(description="`http` (ctx.http.request).")
    method: str
    host: str
    status: int | None = Field(description="The answer's HTTP status (None: no answer).")
    duration_ms: float
    bytes_sent: int
    bytes_received: int
    error: str | None = Field(description="Why the call failed or was refused.")


class RunPublic(RunSummary):
    pid: int | None
    result: Any
    error: str | None
    error_line: int | None
    stdout: str
    stderr: str
    output_truncated: bool = Field(description="True when stdout/stderr/result were capped.")
    cpu_ms: float | None
    peak_memory_bytes: int | None
    fuel: int | None
    trace_id: str | None = Field(description="Its OpenTelemetry trace id, when traces are on.")
    calls: list[RunCallPublic] | None = Field(
        None, description="Its outbound calls in order (never their payloads)."
    )
