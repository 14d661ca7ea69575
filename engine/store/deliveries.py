"""Outbox delivery statements: claim due events, settle those with nowhere to go, record each
attempt, measure the backlog."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import func, select, update
from sqlalchemy.engine import RowMapping
from sqlalchemy.ext.asyncio import AsyncConnection

from engine.store.tables import events
from tenants.tables import tenants


async def due_ids(conn: AsyncConnection, now: datetime, limit: int) -> list[int]:
    """Events due for (re)delivery, oldest first: a read, so an engine with nothing to deliver
    never queues for SQLite's one writer just to look."""
    due = (
        select(events.c.id)
        .where(events.c.delivery_status == "pending", events.c.next_attempt_at <= now)
        .order_by(events.c.next_attempt_at)
        .limit(limit)
    )
    return [row.id for row in await conn.execute(due)]


async def claim(
    conn: AsyncConnection, ids: list[int], now: datetime, hold_until: datetime
) -> list[RowMapping]:
    """Of the `ids` found due, those still due, held until `hold_until` so no other node sends
    them too; each with its tenant's webhook URL as it is now."""
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
        select(events, tenants.c.webhook_url)
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


async def settle_without_webhook(conn: AsyncConnection, ids: list[int]) -> None:
    """Held events whose tenant has no webhook now: nothing to deliver (status `none`)."""
    if ids:
        await conn.execute(
            update(events)
            .where(events.c.id.in_(ids))
            .values(delivery_status="none", next_attempt_at=None)
        )


async def backlog(conn: AsyncConnection) -> int:
    """Events waiting for delivery: due now, held, or retrying later."""
    query = select(func.count()).select_from(events).where(events.c.delivery_status == "pending")
    return int((await conn.execute(query)).scalar_one())
