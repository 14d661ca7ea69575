"""Creating, finding and suspending tenants."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime
from enum import StrEnum
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from sqlalchemy import bindparam, delete, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from tenants.errors import Conflict, InvalidInput, NotFound
from tenants.ids import new_id
from tenants.keys import ApiKey, IssuedKey, Role, create_key, hash_secret, row_to_key
from tenants.quotas import TENANT_BY_ID
from tenants.tables import api_keys, tenants, usage

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
    default_timezone: str = "UTC"
    """The zone of a rule or a preview that names none."""


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
    """The tenant in `row`, read by column (as `row_to_key` reads a key)."""
    m = row._mapping
    return Tenant(
        id=m[tenants.c.id],
        name=m[tenants.c.name],
        status=TenantStatus(m[tenants.c.status]),
        created_at=m[tenants.c.created_at],
        webhook_url=m[tenants.c.webhook_url],
        quotas={c: m[tenants.c[c]] for c in QUOTA_COLUMNS},
        default_timezone=m[tenants.c.default_timezone],
    )


def validate_zone(name: str) -> str:
    """`name` if it is an IANA time zone this machine knows."""
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise InvalidInput(
            f"unknown time zone {name!r}: use an IANA name such as Europe/Berlin"
        ) from exc
    return name


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
                )
            )
    except IntegrityError as exc:
        raise Conflict(f"a tenant named {name!r} already exists: choose another name") from exc
    issued = await create_key(conn, tenant_id, role, name="initial")
    return await get_tenant(conn, tenant_id), issued


#: Built once: every request authenticates, and building and keying a select costs the API
#: process about as much CPU as running it on SQLite (docs/performance.md).
_LIVE_KEY = (
    select(api_keys, tenants)
    .join_from(api_keys, tenants, api_keys.c.tenant_id == tenants.c.id)
    .where(api_keys.c.hash == bindparam("k_hash"), api_keys.c.revoked_at.is_(None))
)


async def get_tenant(conn: AsyncConnection, tenant_id: str) -> Tenant:
    row = (await conn.execute(TENANT_BY_ID, {"t_id": tenant_id})).first()
    if row is None:
        raise NotFound(f"no tenant {tenant_id!r}")
    return row_to_tenant(row)


async def authenticate(conn: AsyncConnection, secret: str) -> tuple[ApiKey, Tenant] | None:
    """The live key with this secret and its tenant, or None (unknown or revoked: callers
    answer 401 alike). One statement: every request authenticates, and a statement costs more
    CPU than the join. A live key always has its tenant (deleting a tenant deletes its keys)."""
    row = (await conn.execute(_LIVE_KEY, {"k_hash": hash_secret(secret)})).first()
    return None if row is None else (row_to_key(row), row_to_tenant(row))


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


async def update_tenant(
    conn: AsyncConnection,
    tenant_id: str,
    *,
    name: str | None = None,
    quotas: Mapping[str, Any] | None = None,
    default_timezone: str | None = None,
) -> Tenant:
    """Rename a tenant, change some of its quotas (only columns of QUOTA_COLUMNS) and/or the
    zone of its rules that name none (rules saved before keep the zone they were saved with)."""
    values: dict[str, Any] = dict(quotas or {})
    unknown = sorted(set(values) - set(QUOTA_COLUMNS))
    if unknown:
        raise InvalidInput(f"unknown quota {unknown[0]!r}: use one of {', '.join(QUOTA_COLUMNS)}")
    if name is not None:
        values["name"] = validate_name(name)
    if default_timezone is not None:
        values["default_timezone"] = validate_zone(default_timezone)
    if not values:
        return await get_tenant(conn, tenant_id)
    try:
        async with conn.begin_nested():
            result = await conn.execute(
                update(tenants).where(tenants.c.id == tenant_id).values(**values)
            )
    except IntegrityError as exc:
        raise Conflict(f"a tenant named {name!r} already exists: choose another name") from exc
    if result.rowcount == 0:
        raise NotFound(f"no tenant {tenant_id!r}")
    return await get_tenant(conn, tenant_id)


async def delete_tenant(conn: AsyncConnection, tenant_id: str) -> None:
    """Delete a tenant and, by cascade, everything it owns (keys, rules, runs, data)."""
    result = await conn.execute(delete(tenants).where(tenants.c.id == tenant_id))
    if result.rowcount == 0:
        raise NotFound(f"no tenant {tenant_id!r}")


async def usage_on(conn: AsyncConnection, tenant_id: str, day: date) -> dict[str, int]:
    """The tenant's runs and CPU milliseconds counted for `day` (zeros when nothing ran)."""
    row = (
        await conn.execute(
            select(usage.c.runs, usage.c.cpu_ms).where(
                usage.c.tenant_id == tenant_id, usage.c.day == day
            )
        )
    ).first()
    return {"runs": int(row.runs), "cpu_ms": int(row.cpu_ms)} if row else {"runs": 0, "cpu_ms": 0}
