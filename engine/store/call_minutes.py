"""The per-tenant minute quota of capability calls, counted in the database for every node.

One row per tenant and minute (`epoch_minute`: whole minutes since the epoch, UTC). Taking a
call is one short write transaction: drop the tenant's past minutes, then an atomic upsert that
adds one only while the count is below the quota and returns the new count; no row back means
the minute is full. The conditional update is decided by the database on the row itself
(SQLite's single writer; PostgreSQL's row lock, whose `WHERE` sees the latest committed count),
so any number of concurrent callers on any number of nodes never count past the quota.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.sql import Executable

from engine.store.tables import capability_call_minutes as minutes


def epoch_minute(at: datetime) -> int:
    """The whole minutes from the epoch to `at` (aware): the bucket a call at `at` counts in."""
    return int(at.timestamp() // 60)


async def take(conn: AsyncConnection, tenant_id: str, at: datetime, quota: int) -> bool:
    """Count one call of the tenant in the minute of `at` if fewer than `quota` were counted;
    whether it was counted. Commit with the caller's transaction."""
    minute = epoch_minute(at)
    await conn.execute(
        delete(minutes).where(minutes.c.tenant_id == tenant_id, minutes.c.epoch_minute < minute)
    )
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
