"""Creating, finding and suspending tenants."""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from tenants.errors import Conflict, InvalidInput, NotFound
from tenants.ids import new_id
from tenants.keys import IssuedKey, Role, create_key
from tenants.tables import tenants

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")


class TenantStatus(StrEnum):
    ACTIVE = "active"
    """Its rules run."""
    SUSPENDED = "suspended"
    """Its loops are stopped; pending actions wait, nothing is lost."""


@dataclass(frozen=True)
class Tenant:
    id: str
    name: str
    status: TenantStatus
    created_at: datetime
    webhook_url: str | None
    quotas: dict[str, Any]


QUOTA_COLUMNS = (
    "max_rules",
    "max_concurrency",
    "max_timeout_ms",
    "max_memory_mb",
    "min_interval_s",
    "allow_secondly",
    "max_runs_per_day",
    "max_cpu_s_per_day",
    "requests_per_minute",
)


def row_to_tenant(row: Any) -> Tenant:
    m = row._mapping
    return Tenant(
        id=m["id"],
        name=m["name"],
        status=TenantStatus(m["status"]),
        created_at=m["created_at"],
        webhook_url=m["webhook_url"],
        quotas={c: m[c] for c in QUOTA_COLUMNS},
    )


def validate_name(name: str) -> str:
    if not _NAME.fullmatch(name):
        raise InvalidInput(
            f"tenant name {name!r} is not valid: use 1-100 letters, digits, '.', '_' or '-', "
            "starting with a letter or digit"
        )
    return name


async def create_tenant(
    conn: AsyncConnection, name: str, role: Role = Role.ADMIN
) -> tuple[Tenant, IssuedKey]:
    """Create a tenant and its first API key (the secret is returned once)."""
    validate_name(name)
    tenant_id = new_id("t")
    try:
        async with conn.begin_nested():
            await conn.execute(
                tenants.insert().values(
                    id=tenant_id,
                    name=name,
                    created_at=datetime.now(UTC),
                    webhook_secret=secrets.token_urlsafe(32),
                )
            )
    except IntegrityError as exc:
        raise Conflict(f"a tenant named {name!r} already exists: choose another name") from exc
    issued = await create_key(conn, tenant_id, role, name="initial")
    return await get_tenant(conn, tenant_id), issued


async def get_tenant(conn: AsyncConnection, tenant_id: str) -> Tenant:
    row = (await conn.execute(select(tenants).where(tenants.c.id == tenant_id))).first()
    if row is None:
        raise NotFound(f"no tenant {tenant_id!r}")
    return row_to_tenant(row)


async def find_tenant(conn: AsyncConnection, id_or_name: str) -> Tenant:
    """A tenant by id or by name (the command line accepts either)."""
    row = (
        await conn.execute(
            select(tenants).where((tenants.c.id == id_or_name) | (tenants.c.name == id_or_name))
        )
    ).first()
    if row is None:
        raise NotFound(f"no tenant with id or name {id_or_name!r}: see `cadenza tenant list`")
    return row_to_tenant(row)


async def list_tenants(
    conn: AsyncConnection, *, after_id: str | None = None, limit: int = 1000
) -> list[Tenant]:
    query = select(tenants).order_by(tenants.c.id).limit(limit)
    if after_id is not None:
        query = query.where(tenants.c.id > after_id)
    return [row_to_tenant(r) for r in await conn.execute(query)]


async def set_status(conn: AsyncConnection, tenant_id: str, status: TenantStatus) -> Tenant:
    result = await conn.execute(
        update(tenants).where(tenants.c.id == tenant_id).values(status=status.value)
    )
    if result.rowcount == 0:
        raise NotFound(f"no tenant {tenant_id!r}")
    return await get_tenant(conn, tenant_id)
