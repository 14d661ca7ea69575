"""A test run: a script run once without saving, and everything it did."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from api.schemas.common import Input, Public
from api.schemas.rules import Code
from sandbox import OutcomeStatus, RuntimeName


class TestRunCreate(Input):
    code: Code
    runtime: RuntimeName = RuntimeName.PYTHON
    params: dict[str, Any] = Field(default_factory=dict, description="Passed to the script.")
    timeout_ms: int = Field(strict=True, default=5000, ge=1, le=3_600_000)
    memory_mb: int = Field(strict=True, default=128, ge=1, le=65_536)


class EmittedEvent(Public):
    type: str
    payload: Any


class TestRunPublic(Public):
    status: OutcomeStatus
    result: Any
    error: str | None
    error_line: int | None
    stdout: str
    stderr: str
    output_truncated: bool
    events: list[EmittedEvent]
    logs: list[str]
    duration_ms: float
    cpu_s: float | None
    peak_memory_bytes: int | None
    kv_changes: dict[str, Any] = Field(
        description="Keys the run would write, with their values; null where it would delete."
    )
