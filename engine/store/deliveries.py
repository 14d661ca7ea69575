"""Outbox delivery statements, for any outbox table with the delivery columns (`events`,
`notifications`: delivery_status, next_attempt_at, delivery_attempts, last_error,
attempted_at): find and hold the rows due, record each attempt, measure the backlog."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import Table, func, select, update
from sqlalchemy.engine import RowMapping
from sqlalchemy.ext.asyncio import AsyncConnection

from engine.store.tables import events
from tenants.tables import tenants


async def due_ids(conn: AsyncConnection, outbox: Table, now: datetime, limit: int) -> list[int]:
    """Rows due for (re)delivery, oldest first: a read, so an engine with nothing to deliver
    never queues for SQLite's one writer just to look."""
    due = (
        select(outbox.c.id)
        .where(outbox.c.delivery_status == "pending", outbox.c.next_attempt_at <= now)
        .order_by(outbox.c.next_attempt_at, outbox.c.id)
        .limit(limit)
    )
    return [row.id for row in await conn.execute(due)]


async def hold(
    conn: AsyncConnection, outbox: Table, ids: list[int], now: datetime, hold_until: datetime
) -> list[int]:
    """Of the `ids` found due, those still due, held until `hold_until` so that no other node
    sends them too."""
    won = await conn.execute(
        update(outbox)
        .where(
            outbox.c.id.in_(ids),
            outbox.c.delivery_status == "pending",
            outbox.c.next_attempt_at <= now,
        )
        .values(next_attempt_at=hold_until)
        .returning(outbox.c.id)
    )
    return [row.id for row in won]


async def claim(
    conn: AsyncConnection, ids: list[int], now: datetime, hold_until: datetime
) -> list[RowMapping]:
    """Of the event `ids` found due, those still due, held; each with its tenant's webhook URL
    as it is now."""
    held = await hold(conn, events, ids, now, hold_until)
    query = (
        select(events, tenants.c.webhook_url)
        .join(tenants, tenants.c.id == events.c.tenant_id)
        .where(events.c.id.in_(held))
        .order_by(events.c.id)
    )
    return list((await conn.execute(query)).mappings())


async def record_attempt(
    conn: AsyncConnection,
    outbox: Table,
    ids: Sequence[int],
    status: str,
    attempts: int,
    next_at: datetime | None,
    error: str | None,
    now: datetime,
) -> None:
    """One attempt at the rows `ids` (one message: an event, a notification or a digest)."""
    values = {
        "delivery_status": status,
        "delivery_attempts": attempts,
        "next_attempt_at": next_at,
        "last_error": error,
    }
    if "attempted_at" in outbox.c:
        values["attempted_at"] = now
    await conn.execute(update(outbox).where(outbox.c.id.in_(ids)).values(**values))


async def settle_without_webhook(conn: AsyncConnection, ids: list[int]) -> None:
    """Held events whose tenant has no webhook now: nothing to deliver (status `none`)."""
    if ids:
        await conn.execute(
            update(events)
            .where(events.c.id.in_(ids))
            .values(delivery_status="none", next_attempt_at=None)
        )


async def backlog(conn: AsyncConnection, outbox: Table) -> int:
    """Rows waiting for delivery: due now, held, or retrying later."""
    query = select(func.count()).select_from(outbox).where(outbox.c.delivery_status == "pending")
    return int((await conn.execute(query)).scalar_one())
