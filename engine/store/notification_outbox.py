"""The notification outbox and the rules' failing streaks: written in the transaction of the
outcome they tell of, so a notice is stored exactly when its outcome is."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import RowMapping
from sqlalchemy.ext.asyncio import AsyncConnection

from engine.domain.notifications import (
    LastDelivery,
    Notice,
    NotificationDeliveryStatus,
    Streak,
    digest_due,
)
from engine.store.tables import notification_routes, notification_streaks, notifications
from tenants.tables import tenants

_routes = notification_routes
_streaks = notification_streaks


async def lock_streaks(
    conn: AsyncConnection, rule_ids: set[str], failing: set[str]
) -> dict[str, Streak]:
    """The streaks of `rule_ids`, locked until the transaction ends (PostgreSQL; SQLite has
    one writer) so that two nodes recording the same rule cannot both send its `failed`.
    The rules with a failure to record (`failing`) get a row first, so there is one to lock."""
    if failing:
        dialect = postgresql if conn.dialect.name == "postgresql" else sqlite
        insert = dialect.insert(_streaks).on_conflict_do_nothing(index_elements=["rule_id"])
        await conn.execute(insert, [{"rule_id": r} for r in sorted(failing)])
    query = (
        select(_streaks)
        .where(_streaks.c.rule_id.in_(rule_ids))
        .order_by(_streaks.c.rule_id)
        .with_for_update()
    )
    rows = (await conn.execute(query)).mappings()
    return {row["rule_id"]: Streak(row["failing"], row["notified"]) for row in rows}


async def save_streaks(conn: AsyncConnection, changed: dict[str, Streak]) -> None:
    """Store the streaks that changed (their rows exist: `lock_streaks` made them)."""
    for rule_id, streak in sorted(changed.items()):
        await conn.execute(
            update(_streaks)
            .where(_streaks.c.rule_id == rule_id)
            .values(failing=streak.failing, notified=streak.notified)
        )


async def routes_of(conn: AsyncConnection, tenant_ids: set[str]) -> list[RowMapping]:
    """The routes of these tenants (their own and their rules'), in id order."""
    query = select(_routes).where(_routes.c.tenant_id.in_(tenant_ids)).order_by(_routes.c.id)
    return list((await conn.execute(query)).mappings())


def route_matches(route: RowMapping, notice: Notice) -> bool:
    """Whether the route asks for the notice: its tenant's, for every rule or the notice's
    rule, and for its event."""
    return (
        route["tenant_id"] == notice.tenant_id
        and route["rule_id"] in (None, notice.rule_id)
        and notice.event in route["events"]
    )


async def insert_notices(
    conn: AsyncConnection, notices: Sequence[Notice], routes: Sequence[RowMapping] | None = None
) -> None:
    """One outbox row per notice and route that asks for it (`routes`: those of the notices'
    tenants, when the caller has read them already)."""
    if not notices:
        return
    if routes is None:
        routes = await routes_of(conn, {n.tenant_id for n in notices})
    rows = [_row(n, r) for n in notices for r in routes if route_matches(r, n)]
    if rows:
        await conn.execute(notifications.insert(), rows)


def _row(notice: Notice, route: RowMapping) -> dict[str, Any]:
    return {
        "tenant_id": notice.tenant_id,
        "route_id": route["id"],
        "event": notice.event,
        "rule_id": notice.rule_id,
        "action_id": notice.action_id,
        "run_id": notice.run_id,
        "payload": notice.payload,
        "created_at": notice.at,
        "delivery_status": "pending",
        "next_attempt_at": digest_due(notice.at, route["digest_minutes"]),
    }


async def held(conn: AsyncConnection, ids: Sequence[int]) -> list[RowMapping]:
    """The held notifications `ids`, each with its route (channel, target, digest) and its
    tenant's webhook URL as they are now."""
    query = (
        select(
            notifications,
            _routes.c.channel,
            _routes.c.target,
            _routes.c.digest_minutes,
            tenants.c.webhook_url,
        )
        .join(_routes, _routes.c.id == notifications.c.route_id)
        .join(tenants, tenants.c.id == notifications.c.tenant_id)
        .where(notifications.c.id.in_(ids))
        .order_by(notifications.c.id)
    )
    return list((await conn.execute(query)).mappings())


async def last_deliveries(
    conn: AsyncConnection, route_ids: Sequence[int]
) -> dict[int, LastDelivery]:
    """Each route's newest attempted notification: how its last attempt ended."""
    if not route_ids:
        return {}
    newest = (
        select(func.max(notifications.c.id))
        .where(notifications.c.route_id.in_(route_ids), notifications.c.attempted_at.is_not(None))
        .group_by(notifications.c.route_id)
    )
    query = select(notifications).where(notifications.c.id.in_(newest.scalar_subquery()))
    return {row["route_id"]: _delivery(row) for row in (await conn.execute(query)).mappings()}


def _delivery(row: RowMapping) -> LastDelivery:
    status = NotificationDeliveryStatus(row["delivery_status"])
    return LastDelivery(status, row["attempted_at"], row["last_error"])
