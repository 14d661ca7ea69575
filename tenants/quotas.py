"""A tenant's quotas as one record: what the engine checks rules and runs against."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import bindparam, select
from sqlalchemy.ext.asyncio import AsyncConnection

from tenants.errors import NotFound
from tenants.tables import tenants


@dataclass(frozen=True)
class Quotas:
    """Caps on what one tenant's rules may ask for and use (the `tenants` columns)."""

    max_rules: int
    max_concurrency: int
    max_timeout_ms: int
    max_memory_mb: int
    min_interval_s: int
    allow_secondly: bool
    max_runs_per_day: int
    max_cpu_s_per_day: int


@dataclass(frozen=True)
class TenantProfile:
    """What the engine needs of a tenant: whether it runs, and its quotas. (Its webhook is
    read when each event is delivered, never from this cached record.)"""

    tenant_id: str
    is_active: bool
    quotas: Quotas


_QUOTA_NAMES = tuple(Quotas.__dataclass_fields__)
#: One tenant's row by id (`t_id`), built once: the API reads one with every request and the
#: engine a profile per claim, and building and keying a select costs about as much as
#: running it on SQLite.
TENANT_BY_ID = select(tenants).where(tenants.c.id == bindparam("t_id"))


async def load_profile(conn: AsyncConnection, tenant_id: str) -> TenantProfile:
    """The tenant's profile; NotFound when there is no such tenant."""
    row = (await conn.execute(TENANT_BY_ID, {"t_id": tenant_id})).mappings().first()
    if row is None:
        raise NotFound(f"no tenant {tenant_id!r}")
    return TenantProfile(
        tenant_id=tenant_id,
        is_active=row["status"] == "active",
        quotas=Quotas(**{name: row[name] for name in _QUOTA_NAMES}),
    )
