"""Events scripts emitted: the durable feed `GET /v1/events?after=` reads."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import Field

from api.schemas.common import Public


class EventPublic(Public):
    id: int
    type: str
    payload: Any
    source: str
    rule_id: str | None
    action_id: int | None
    run_id: int | None
    created_at: datetime
    delivery_status: str = Field(description="Webhook delivery: none, pending, delivered, failed.")
    delivery_attempts: int
    last_error: str | None


class EventFeed(Public):
    """A page of the feed; poll again with `after=next_cursor` (it is never null)."""

    items: list[EventPublic]
    next_cursor: str = Field(description="Where to continue; equals `after` when nothing new.")
