"""Reading back what the engine stored, for assertions."""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncEngine

from engine.store.tables import actions, runs
from tenants.kv import get_item


async def kv_value(db: AsyncEngine, tenant_id: str, key: str) -> object:
    """The tenant's committed kv value at `key`, or None."""
    async with db.connect() as conn:
        item = await get_item(conn, tenant_id, key)
    return None if item is None else item.value


async def action_status(db: AsyncEngine, action_id: int) -> str:
    async with db.connect() as conn:
        query = select(actions.c.status).where(actions.c.id == action_id)
        return str((await conn.execute(query)).scalar_one())


async def is_succeeded(db: AsyncEngine, action_id: int) -> bool:
    return await action_status(db, action_id) == "succeeded"


async def committed_runs(db: AsyncEngine, action_id: int) -> int:
    """How many of the action's runs were committed with their effects."""
    async with db.connect() as conn:
        query = select(func.count()).where(
            runs.c.action_id == action_id, runs.c.committed.is_(True)
        )
        return int((await conn.execute(query)).scalar_one())
