"""Statements on `calendars` (every one scoped by tenant) and on the rules that use one."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import delete, func, select, update
from sqlalchemy.engine import RowMapping
from sqlalchemy.ext.asyncio import AsyncConnection

from engine.store.tables import calendars, rules


def _scoped(tenant_id: str) -> Any:
    return calendars.c.tenant_id == tenant_id


async def get(conn: AsyncConnection, tenant_id: str, name: str) -> RowMapping | None:
    query = select(calendars).where(_scoped(tenant_id), calendars.c.name == name)
    return (await conn.execute(query)).mappings().first()


async def get_many(
    conn: AsyncConnection, tenant_id: str, names: Sequence[str]
) -> dict[str, RowMapping]:
    """The tenant's calendars named in `names`, by name (absent names are missing)."""
    if not names:
        return {}
    query = select(calendars).where(_scoped(tenant_id), calendars.c.name.in_(set(names)))
    return {row["name"]: row for row in (await conn.execute(query)).mappings()}


async def list_page(
    conn: AsyncConnection, tenant_id: str, after_name: str | None, limit: int
) -> list[RowMapping]:
    """Calendars in name order after `after_name`."""
    query = select(calendars).where(_scoped(tenant_id))
    if after_name is not None:
        query = query.where(calendars.c.name > after_name)
    query = query.order_by(calendars.c.name).limit(limit)
    return list((await conn.execute(query)).mappings())


async def insert(conn: AsyncConnection, values: dict[str, Any]) -> None:
    await conn.execute(calendars.insert().values(**values))


async def update_dates(
    conn: AsyncConnection, tenant_id: str, name: str, values: dict[str, Any]
) -> bool:
    """Write `values` and bump the version; False when there is no such calendar."""
    query = (
        update(calendars)
        .where(_scoped(tenant_id), calendars.c.name == name)
        .values(**values, version=calendars.c.version + 1)
    )
    return (await conn.execute(query)).rowcount == 1


async def remove(conn: AsyncConnection, tenant_id: str, name: str) -> None:
    await conn.execute(delete(calendars).where(_scoped(tenant_id), calendars.c.name == name))


async def rules_using(conn: AsyncConnection, tenant_id: str, name: str) -> list[tuple[str, str]]:
    """(id, name) of the tenant's live rules that name calendar `name`, in id order."""
    return (await rules_using_each(conn, tenant_id, [name]))[name]


async def rules_using_each(
    conn: AsyncConnection, tenant_id: str, names: Sequence[str]
) -> dict[str, list[tuple[str, str]]]:
    """For each calendar of `names`, (id, name) of the tenant's live rules that name it, in id
    order: one read of the rules for a whole page of calendars.

    Filtered here rather than in SQL: JSON containment differs between SQLite and PostgreSQL,
    and a tenant's rule count is bounded by its quota."""
    query = (
        select(rules.c.id, rules.c.name, rules.c.calendars)
        .where(rules.c.tenant_id == tenant_id, rules.c.deleted_at.is_(None))
        .order_by(rules.c.id)
    )
    rows = (await conn.execute(query)).all()
    return {
        name: [(row.id, row.name) for row in rows if name in (row.calendars or ())]
        for name in names
    }


async def count(conn: AsyncConnection, tenant_id: str) -> int:
    query = select(func.count()).select_from(calendars).where(_scoped(tenant_id))
    return int((await conn.execute(query)).scalar_one())
