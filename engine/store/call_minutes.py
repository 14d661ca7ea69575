"""The per-tenant minute quota of capability calls, counted in the database for every node.

One row per tenant and minute (`epoch_minute`: whole minutes since the epoch, UTC). Taking a
call is one short write transaction: drop the tenant's minutes before the previous one, then an
atomic upsert that adds one only while the count is below the quota and returns the new count;
no row back means the minute is full.

A caller's clock reading can be a moment behind another's across a minute's turn (read just
before it, counted just after another node counted in the new minute). Its call happens now, so
it counts in the newest minute counted; and the previous minute's row stays, so that a caller
that read the tenant's rows before the new minute was counted still finds its minute's count
instead of starting it again from zero (which let one call too many through).

The conditional update is decided by the database on the row itself (SQLite's single writer;
PostgreSQL's row lock, whose `WHERE` sees the latest committed count), so any number of
concurrent callers on any number of nodes never count past the quota.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, func, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.sql import Executable

from engine.store.tables import capability_call_minutes as minutes


def epoch_minute(at: datetime) -> int:
    """The whole minutes from the epoch to `at` (aware): the bucket a call at `at` counts in."""
    return int(at.timestamp() // 60)


async def take(conn: AsyncConnection, tenant_id: str, at: datetime, quota: int) -> bool:
    """Count one call of the tenant in the minute of `at` (or a newer one already counted) if
    fewer than `quota` were counted in it; whether it was counted. Commit with the caller's
    transaction."""
    minute = epoch_minute(at)
    mine = minutes.c.tenant_id == tenant_id
    await conn.execute(delete(minutes).where(mine, minutes.c.epoch_minute < minute - 1))
    newest = await conn.scalar(select(func.max(minutes.c.epoch_minute)).where(mine))
    minute = max(minute, newest or minute)
    counted = await conn.execute(_count_one(conn.dialect.name, tenant_id, minute, quota))
    return counted.first() is not None


async def counted(conn: AsyncConnection, tenant_id: str, at: datetime) -> int:
    """The calls counted for the tenant in the minute of `at` (0 when none)."""
    query = minutes.select().where(
        minutes.c.tenant_id == tenant_id, minutes.c.epoch_minute == epoch_minute(at)
    )
    row = (await conn.execute(query)).first()
    return 0 if row is None else int(row.calls)


def _count_one(dialect_name: str, tenant_id: str, minute: int, quota: int) -> Executable:
    dialect = postgresql if dialect_name == "postgresql" else sqlite
    first = dialect.insert(minutes).values(tenant_id=tenant_id, epoch_minute=minute, calls=1)
    return first.on_conflict_do_update(
        index_elements=[minutes.c.tenant_id, minutes.c.epoch_minute],
        set_={"calls": minutes.c.calls + 1},
        where=minutes.c.calls < quota,
    ).returning(minutes.c.calls)
