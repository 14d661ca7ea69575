"""One-off actions and the queue items of rules."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import Field

from api.schemas.common import Input, Instant, Public
from api.schemas.rules import Code
from engine.domain.records import ActionStatus
from sandbox import RuntimeName


class ActionCreate(Input):
    """Run a script once at `run_at`: either a rule's script (`rule_id`) or its own `code`."""

    run_at: Instant
    key: str | None = Field(
        None,
        min_length=1,
        max_length=200,
        description="Idempotency key: submitting again with the same key updates the action.",
    )
    rule_id: str | None = Field(None, max_length=40)
    code: Code | None = None
    runtime: RuntimeName | None = None
    params: dict[str, Any] | None = None
    expires_at: Instant | None = Field(
        None,
        description="Not started by then, it is expired (event `action.expired`) instead of "
        "run late; after `run_at`. Default: it waits as long as it takes.",
    )
    priority: int | None = Field(
        None,
        strict=True,
        ge=-1000,
        le=1000,
        description="Higher runs first among actions due at once; default: its rule's, or 0.",
    )

    model_config = {
        "json_schema_extra": {
            "examples": [
                {
                    "run_at": "2030-01-01T09:00:00+01:00",
                    "key": "invoice-42-reminder",
                    "code": "def main(ctx):\n    ctx.emit('email', {'to': ctx.params['to']})\n",
                    "params": {"to": "ops@example.com"},
                }
            ]
        }
    }


class ActionPublic(Public):
    id: int
    rule_id: str | None
    rule_version: int | None
    key: str | None
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
        description="When its current run started; null while it has not, and until then it "
        "can be cancelled (a run that started is never interrupted)."
    )
    expires_at: datetime | None = Field(
        description="Expired instead of run if not started by then."
    )


class ActionList(Public):
    items: list[ActionPublic]
