"""Statements on `notification_routes`: every one scoped by tenant."""

from __future__ import annotations

from typing import Any

from sqlalchemy import delete, func, select
from sqlalchemy.engine import RowMapping
from sqlalchemy.ext.asyncio import AsyncConnection

from engine.store.tables import notification_routes, rules

_routes = notification_routes


def _scoped(tenant_id: str) -> Any:
    return _routes.c.tenant_id == tenant_id


async def get(conn: AsyncConnection, tenant_id: str, route_id: int) -> RowMapping | None:
    query = select(_routes).where(_scoped(tenant_id), _routes.c.id == route_id)
    return (await conn.execute(query)).mappings().first()


async def list_page(
    conn: AsyncConnection, tenant_id: str, rule_id: str | None, after_id: int | None, limit: int
) -> list[RowMapping]:
    """Routes in id order after `after_id`; with `rule_id`, only that rule's own routes."""
    query = select(_routes).where(_scoped(tenant_id))
    if rule_id is not None:
        query = query.where(_routes.c.rule_id == rule_id)
    if after_id is not None:
        query = query.where(_routes.c.id > after_id)
    return list((await conn.execute(query.order_by(_routes.c.id).limit(limit))).mappings())


async def insert(conn: AsyncConnection, values: dict[str, Any]) -> int:
    result = await conn.execute(_routes.insert().values(**values).returning(_routes.c.id))
    return int(result.scalar_one())


async def remove(conn: AsyncConnection, tenant_id: str, route_id: int) -> bool:
    query = delete(_routes).where(_scoped(tenant_id), _routes.c.id == route_id)
    return (await conn.execute(query)).rowcount == 1


async def count(conn: AsyncConnection, tenant_id: str) -> int:
    query = select(func.count()).select_from(_routes).where(_scoped(tenant_id))
    return int((await conn.execute(query)).scalar_one())


async def rule_is_live(conn: AsyncConnection, tenant_id: str, rule_id: str) -> bool:
    """Whether the tenant has a rule `rule_id` that is not deleted."""
    query = select(rules.c.id).where(
        rules.c.tenant_id == tenant_id, rules.c.id == rule_id, rules.c.deleted_at.is_(None)
    )
    return (await conn.execute(query)).first() is not None
