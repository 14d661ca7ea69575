"""Which capabilities of the embedding product a tenant may call: one row per grant.

The operator grants and revokes (`/v1/admin/tenants/{id}/capabilities`, `cadenza capabilities`);
a grant names a capability of the operator's registry, but outlives it: a capability removed
from the registry is simply not callable, and comes back with its grants if it is registered
again.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncConnection

from tenants.errors import NotFound
from tenants.registry import get_tenant
from tenants.tables import tenant_capabilities as grants
from tenants.upsert import upsert


@dataclass(frozen=True)
class Grant:
    """A tenant's permission to call one capability."""

    name: str
    granted_at: datetime


async def list_grants(conn: AsyncConnection, tenant_id: str) -> list[Grant]:
    """The tenant's grants by name (NotFound: no such tenant)."""
    await get_tenant(conn, tenant_id)
    query = select(grants.c.name, grants.c.granted_at).where(grants.c.tenant_id == tenant_id)
    rows = await conn.execute(query.order_by(grants.c.name))
    return [Grant(row.name, row.granted_at) for row in rows]


async def granted_names(conn: AsyncConnection, tenant_id: str) -> frozenset[str]:
    """The names the tenant may call (what a run checks; no tenant lookup)."""
    query = select(grants.c.name).where(grants.c.tenant_id == tenant_id)
    return frozenset((await conn.execute(query)).scalars())


async def grant(conn: AsyncConnection, tenant_id: str, name: str, now: datetime) -> Grant:
    """Grant `name` to the tenant; granting it again keeps the first grant's time."""
    await get_tenant(conn, tenant_id)
    row = {"tenant_id": tenant_id, "name": name, "granted_at": now}
    await upsert(conn, grants, [row], ["tenant_id", "name"], ["name"])
    query = select(grants.c.granted_at).where(
        (grants.c.tenant_id == tenant_id) & (grants.c.name == name)
    )
    return Grant(name, (await conn.execute(query)).scalar_one())


async def revoke(conn: AsyncConnection, tenant_id: str, name: str) -> None:
    """Take the grant back; NotFound when the tenant does not hold it."""
    await get_tenant(conn, tenant_id)
    done = await conn.execute(
        delete(grants).where((grants.c.tenant_id == tenant_id) & (grants.c.name == name))
    )
    if done.rowcount == 0:
        raise NotFound(
            f"tenant {tenant_id!r} holds no grant of capability {name!r}: "
            f"GET /v1/admin/tenants/{tenant_id}/capabilities lists its grants"
        )
