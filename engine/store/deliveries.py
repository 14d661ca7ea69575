"""Outbox delivery statements: claim due events, record each attempt."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select, update
from sqlalchemy.engine import RowMapping
from sqlalchemy.ext.asyncio import AsyncConnection

from engine.store.tables import events
from tenants.tables import tenants


async def claim_due(
    conn: AsyncConnection, now: datetime, hold_until: datetime, limit: int
) -> list[RowMapping]:
    """Events due for (re)delivery, held until `hold_until` so no other node sends them too;
    each with its tenant's webhook URL and secret."""
    due = (
        select(events.c.id)
        .where(events.c.delivery_status == "pending", events.c.next_attempt_at <= now)
        .order_by(events.c.next_attempt_at)
        .limit(limit)
    )
    ids = [row.id for row in await conn.execute(due)]
    if not ids:
        return []
    won = await conn.execute(
        update(events)
        .where(
            events.c.id.in_(ids),
            events.c.delivery_status == "pending",
            events.c.next_attempt_at <= now,
        )
        .values(next_attempt_at=hold_until)
        .returning(events.c.id)
    )
    held = [row.id for row in won]
    query = (
        select(events, tenants.c.webhook_url, tenants.c.webhook_secret)
        .join(tenants, tenants.c.id == events.c.tenant_id)
        .where(events.c.id.in_(held))
        .order_by(events.c.id)
    )
    return list((await conn.execute(query)).mappings())


async def record_attempt(
    conn: AsyncConnection,
    event_id: int,
    status: str,
    attempts: int,
    next_at: datetime | None,
    error: str | None,
) -> None:
    await conn.execute(
        update(events)
        .where(events.c.id == event_id)
        .values(
            delivery_status=status,
            delivery_attempts=attempts,
            next_attempt_at=next_at,
            last_error=error,
        )
    )
