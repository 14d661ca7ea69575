"""Creating, reading and deleting notification routes (docs/notifications.md).

Routes are immutable: a change is a delete and a create, so a sender never reads a route
half-way through an edit. Every statement is scoped by tenant: another tenant's route, or a
route naming another tenant's rule, behaves like a missing one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict
from typing import Any

from engine.deps import Deps
from engine.domain.notifications import (
    LastDelivery,
    NotificationChannel,
    NotificationEvent,
    NotificationRoute,
    RouteSpec,
)
from engine.domain.records import Page
from engine.errors import InvalidRule, NotificationRouteNotFound, QuotaExceeded
from engine.service.row_records import decode_int_cursor, encode_cursor
from engine.store import notification_outbox as outbox
from engine.store import notification_routes as route_store

#: Routes one tenant may keep (tenant-wide and per-rule together).
MAX_ROUTES = 200
MAX_ROUTE_PAGE = 200


def route_record(row: Mapping[Any, Any], last: LastDelivery | None = None) -> NotificationRoute:
    return NotificationRoute(
        id=row["id"],
        rule_id=row["rule_id"],
        events=tuple(NotificationEvent(event) for event in row["events"]),
        channel=NotificationChannel(row["channel"]),
        target=row["target"],
        digest_minutes=row["digest_minutes"],
        created_at=row["created_at"],
        last_delivery=last,
    )


async def create_route(deps: Deps, tenant_id: str, spec: RouteSpec) -> NotificationRoute:
    """Store `spec` (its rule must be a live rule of the tenant); the route as stored."""
    values = asdict(spec) | {"tenant_id": tenant_id, "created_at": deps.clock.now()}
    values["events"] = sorted(set(spec.events))
    async with deps.db.begin() as conn:
        await _check_room(conn, tenant_id, spec.rule_id)
        route_id = await route_store.insert(conn, values)
        row = await route_store.get(conn, tenant_id, route_id)
    assert row is not None  # written in this transaction
    return route_record(row)


async def _check_room(conn: Any, tenant_id: str, rule_id: str | None) -> None:
    if rule_id is not None and not await route_store.rule_is_live(conn, tenant_id, rule_id):
        raise InvalidRule(
            "rule_id",
            f"no rule {rule_id!r} for this tenant",
            hint="name one of your rules (GET /v1/rules), or leave rule_id out for all rules",
        )
    if await route_store.count(conn, tenant_id) >= MAX_ROUTES:
        raise QuotaExceeded(
            "notification_routes",
            f"this tenant has {MAX_ROUTES} notification routes, the most allowed: delete one "
            "(DELETE /v1/notification-routes/{id}) first",
        )


async def get_route(deps: Deps, tenant_id: str, route_id: int) -> NotificationRoute:
    async with deps.db.connect() as conn:
        row = await route_store.get(conn, tenant_id, route_id)
        last = await outbox.last_deliveries(conn, [route_id])
    if row is None:
        raise NotificationRouteNotFound(f"no notification route {route_id} for this tenant")
    return route_record(row, last.get(route_id))


async def list_routes(
    deps: Deps, tenant_id: str, rule_id: str | None, cursor: str | None, limit: int
) -> Page[NotificationRoute]:
    """Routes in id order (with `rule_id`: that rule's own); `next_cursor` continues."""
    limit = max(1, min(limit, MAX_ROUTE_PAGE))
    after = decode_int_cursor(cursor)
    async with deps.db.connect() as conn:
        rows = await route_store.list_page(conn, tenant_id, rule_id, after, limit + 1)
        last = await outbox.last_deliveries(conn, [row["id"] for row in rows[:limit]])
    page = [route_record(row, last.get(row["id"])) for row in rows[:limit]]
    return Page(page, encode_cursor(page[-1].id) if len(rows) > limit else None)


async def delete_route(deps: Deps, tenant_id: str, route_id: int) -> None:
    async with deps.db.begin() as conn:
        if not await route_store.remove(conn, tenant_id, route_id):
            raise NotificationRouteNotFound(f"no notification route {route_id} for this tenant")
