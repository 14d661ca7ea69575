"""Retention: successful runs (and delivered notifications) go after `retention_ok_days`,
failures (and undelivered notifications) only after `retention_failed_days`, in batches small
enough to keep the writer responsive."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncEngine

from engine.clock import ManualClock
from engine.config import EngineConfig
from engine.deps import Deps
from engine.domain.notifications import NotificationChannel, NotificationEvent, RouteSpec
from engine.domain.records import RuleSpec
from engine.ops.retention import purge_history
from engine.service import EngineService
from engine.store.tables import notifications, runs
from sandbox import Sandbox


def _run(
    tenant_id: str, action_id: int, outcome: str, age: timedelta, clock: ManualClock
) -> dict[str, object]:
    at = clock.now() - age
    return {
        "tenant_id": tenant_id, "action_id": action_id, "attempt": 1, "node": "n",
        "runtime": "python", "planned_at": at, "started_at": at, "finished_at": at,
        "outcome": outcome, "duration_ms": 1.0, "lateness_ms": 0.0,
    }  # fmt: skip


async def test_purge_keeps_failures_longer(
    db: AsyncEngine, sandbox: Sandbox, service: EngineService, tenant_id: str, clock: ManualClock
) -> None:
    await service.create_rule(
        tenant_id, RuleSpec(name="r", schedule="* * * * *", code="def main(ctx):\n    return 1\n")
    )
    action_id = (await service.list_actions(tenant_id)).items[0].id
    ages = {
        "ok-old": ("ok", 40),
        "ok-new": ("ok", 10),
        "err-mid": ("error", 40),
        "err-old": ("timeout", 100),
    }
    async with db.begin() as conn:
        for outcome, days in ages.values():
            for _ in range(3):
                await conn.execute(
                    runs.insert().values(
                        **_run(tenant_id, action_id, outcome, timedelta(days=days), clock)
                    )
                )
    config = EngineConfig(retention_ok_days=30, retention_failed_days=90, retention_batch=2)
    removed = await purge_history(Deps(db, sandbox, config, clock, lambda _: None), clock.now())
    async with db.connect() as conn:
        left = sorted(
            (o, round((clock.now() - f).days))
            for o, f in await conn.execute(select(runs.c.outcome, runs.c.finished_at))
        )
    assert removed == 6
    assert left == [("error", 40)] * 3 + [("ok", 10)] * 3


async def test_purge_keeps_undelivered_notifications_longer(
    db: AsyncEngine, sandbox: Sandbox, service: EngineService, tenant_id: str, clock: ManualClock
) -> None:
    spec = RouteSpec((NotificationEvent.FAILED,), NotificationChannel.WEBHOOK, "", None, None)
    route = await service.create_notification_route(tenant_id, spec)
    kept = {("delivered", 10), ("failed", 40), ("pending", 40)}
    async with db.begin() as conn:
        for status, days in [*kept, ("delivered", 40), ("failed", 100), ("pending", 100)]:
            at = clock.now() - timedelta(days=days)
            await conn.execute(
                notifications.insert().values(
                    tenant_id=tenant_id, route_id=route.id, event="failed", payload={},
                    created_at=at, delivery_status=status,
                )
            )  # fmt: skip
    config = EngineConfig(retention_ok_days=30, retention_failed_days=90, retention_batch=2)
    removed = await purge_history(Deps(db, sandbox, config, clock, lambda _: None), clock.now())
    async with db.connect() as conn:
        query = select(notifications.c.delivery_status, notifications.c.created_at)
        left = {(s, (clock.now() - at).days) for s, at in await conn.execute(query)}
    assert (removed, left) == (3, kept)
