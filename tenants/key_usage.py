"""When each API key was last used, kept to the minute so that reads rarely cost a write."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import or_, update
from sqlalchemy.ext.asyncio import AsyncConnection

from tenants.tables import api_keys

#: A key's `last_used_at` is refreshed at most this often.
RESOLUTION = timedelta(minutes=1)


def is_stale(last_used_at: datetime | None, now: datetime) -> bool:
    return last_used_at is None or now - last_used_at >= RESOLUTION


async def mark_used(conn: AsyncConnection, key_id: str, now: datetime) -> None:
    """Record a use of the key, unless one within RESOLUTION is already recorded."""
    await conn.execute(
        update(api_keys)
        .where(
            api_keys.c.id == key_id,
            or_(api_keys.c.last_used_at.is_(None), api_keys.c.last_used_at <= now - RESOLUTION),
        )
        .values(last_used_at=now)
    )
