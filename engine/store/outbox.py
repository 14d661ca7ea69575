"""The events outbox: written in the run's transaction, read by the API, sent by delivery."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import select
from sqlalchemy.engine import RowMapping
from sqlalchemy.ext.asyncio import AsyncConnection

from engine.store.tables import events


async def insert_events(conn: AsyncConnection, rows: Sequence[Mapping[str, Any]]) -> None:
    """Store events, each due for delivery at once. Whether it goes anywhere is decided when
    it is delivered, from the tenant's webhook as it is then (`engine.delivery`): a decision
    taken here, from a tenant profile cached by the loop, lost the events recorded in the
    minute after a tenant set its webhook."""
    if rows:
        due = [
            {**r, "delivery_status": "pending", "next_attempt_at": r["created_at"]} for r in rows
        ]
        await conn.execute(events.insert(), due)


async def list_events(
    conn: AsyncConnection, tenant_id: str, after_id: int | None, limit: int
) -> list[RowMapping]:
    """The tenant's events in id order, after `after_id` (the cursor), at most `limit`."""
    query = select(events).where(events.c.tenant_id == tenant_id)
    if after_id is not None:
        query = query.where(events.c.id > after_id)
    return list((await conn.execute(query.order_by(events.c.id).limit(limit))).mappings())
