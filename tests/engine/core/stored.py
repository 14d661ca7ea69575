"""Reading back what the engine stored, for assertions."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncEngine

from tenants.kv import get_item


async def kv_value(db: AsyncEngine, tenant_id: str, key: str) -> object:
    """The tenant's committed kv value at `key`, or None."""
    async with db.connect() as conn:
        item = await get_item(conn, tenant_id, key)
    return None if item is None else item.value
