"""The demo tenant `cadenza serve` creates in an empty database: a newcomer can try it at once."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncEngine

from tenants.keys import IssuedKey
from tenants.registry import create_tenant, list_tenants

DEMO_TENANT = "demo"


async def ensure_demo_tenant(engine: AsyncEngine) -> IssuedKey | None:
    """Create the demo tenant if there is no tenant at all; its key is returned once."""
    async with engine.begin() as conn:
        if await list_tenants(conn, limit=1):
            return None
        _, issued = await create_tenant(conn, DEMO_TENANT)
    return issued
