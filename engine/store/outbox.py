"""The events outbox: written in the run's transaction, read by the API, sent by delivery."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.engine import RowMapping
from sqlalchemy.ext.asyncio import AsyncConnection

from engine.store.tables import events


@dataclass(frozen=True, slots=True)
class NewEvent:
    """An event to store: emitted by a run's script (`source` "script") or by the engine."""

    tenant_id: str
    type: str
    payload: Any
    source: str
    created_at: datetime
    rule_id: str | None = None
    action_id: int | None = None
    run_id: int | None = None


_EVENT_FIELDS = tuple(f.name for f in fields(NewEvent))


def _event_row(event: NewEvent) -> dict[str, Any]:
    row = {name: getattr(event, name) for name in _EVENT_FIELDS}
    return row | {"delivery_status": "pending", "next_attempt_at": event.created_at}


async def insert_events(conn: AsyncConnection, new: Sequence[NewEvent]) -> None:
    """Store events, each due for delivery at once. Whether it goes anywhere is decided when
    it is delivered, from the tenant's webhook as it is then (`engine.webhooks.delivery`): a
    decision taken here, from a tenant profile cached by the loop, lost the events recorded in
    the minute after a tenant set its webhook."""
    if new:
        await conn.execute(events.insert(), [_event_row(e) for e in new])


async def list_events(
    conn: AsyncConnection, tenant_id: str, after_id: int | None, limit: int
) -> list[RowMapping]:
    """The tenant's events in id order, after `after_id` (the cursor), at most `limit`."""
    query = select(events).where(events.c.tenant_id == tenant_id)
    if after_id is not None:
        query = query.where(events.c.id > after_id)
    return list((await conn.execute(query.order_by(events.c.id).limit(limit))).mappings())
