"""Skips, expiries and missed occurrences reach the routes that ask for them, each exactly
once, as a property on the real database: for any mix of rules (misfire policies and grace),
one-offs that expire, tenant and rule routes, and any lateness of the step, one claim step
writes one notification per route for every action it skipped or expired and every missed
occurrence it recorded, with the occurrence's time and reason; a neighbour tenant's route
hears nothing."""

from __future__ import annotations

import itertools
from collections import Counter
from datetime import datetime, timedelta
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncEngine
from support.moments import START

from engine.config import EngineConfig
from engine.domain.notifications import (
    POLICY_SKIPS,
    NotificationChannel,
    NotificationEvent,
    RouteSpec,
)
from engine.domain.records import ActionStatus, MisfirePolicy, RuleSpec
from engine.loop import claiming
from engine.loop.tenant_state import TenantState
from engine.service import EngineService
from engine.store import loop_statements as queue
from engine.store.tables import actions, notifications
from tenants.quotas import load_profile
from tenants.registry import create_tenant
from tenants.usage import Usage

OK = "def main(ctx):\n    return 1\n"
MINUTE = timedelta(minutes=1)
#: (misfire policy, grace in seconds or None for the default) of each rule due every minute.
RULES = st.lists(
    st.tuples(st.sampled_from(list(MisfirePolicy)), st.sampled_from([None, 0, 90, 600])),
    min_size=1,
    max_size=4,
)
EVENTS = st.frozensets(
    st.sampled_from([NotificationEvent.SKIPPED, NotificationEvent.EXPIRED]), min_size=1
)
_names = itertools.count()


async def _tenant(db: AsyncEngine) -> str:
    async with db.begin() as conn:
        tenant, _ = await create_tenant(conn, f"notices-{next(_names)}")
    return tenant.id


async def _route(
    service: EngineService, tenant_id: str, events: frozenset[NotificationEvent], rule_id: Any
) -> int:
    spec = RouteSpec(
        tuple(sorted(events)), NotificationChannel.SLACK, "https://x.example/h", rule_id, None
    )
    return (await service.create_notification_route(tenant_id, spec)).id


async def _step(db: AsyncEngine, config: EngineConfig, tenant_id: str, now: datetime) -> None:
    """One claim step of the tenant's loop at `now`, as `TenantLoop._claim` takes it."""
    async with db.connect() as conn:
        due = await queue.fetch_due(conn, tenant_id, now, 200, set())
        profile = await load_profile(conn, tenant_id)
    state = TenantState(profile, now.date(), Usage(0, 0), loaded_at=now)
    decided = claiming.decide_all(due, state, now, config)
    async with db.begin() as conn:
        await claiming.apply(conn, decided, state, now, config)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    rules=RULES,
    expiring=st.integers(0, 2),
    late_s=st.integers(0, 9 * 60),
    tenant_routes=st.lists(EVENTS, min_size=1, max_size=2),
    first_rule_route=st.booleans(),
)
async def test_one_notice_per_route_for_every_skip_expiry_and_missed_occurrence(
    db: AsyncEngine,
    service: EngineService,
    engine_config: EngineConfig,
    rules: list[tuple[MisfirePolicy, int | None]],
    expiring: int,
    late_s: int,
    tenant_routes: list[frozenset[NotificationEvent]],
    first_rule_route: bool,
) -> None:
    tenant_id, neighbour = await _tenant(db), await _tenant(db)
    rule_ids = []
    for policy, grace in rules:
        spec = RuleSpec(
            name="r", schedule="* * * * *", code=OK, misfire_policy=policy, misfire_grace_s=grace
        )
        rule_ids.append((await service.create_rule(tenant_id, spec)).id)
    for _ in range(expiring):
        await service.submit_action(
            tenant_id, run_at=START + MINUTE, code=OK, expires_at=START + 2 * MINUTE
        )
    routes: dict[int, tuple[frozenset[NotificationEvent], str | None]] = {
        await _route(service, tenant_id, events, None): (events, None) for events in tenant_routes
    }
    if first_rule_route:
        skipped = frozenset({NotificationEvent.SKIPPED})
        routes[await _route(service, tenant_id, skipped, rule_ids[0])] = (skipped, rule_ids[0])
    every = frozenset(NotificationEvent)
    neighbour_route = await _route(service, neighbour, every, None)

    await _step(db, engine_config, tenant_id, START + MINUTE + timedelta(seconds=late_s))

    async with db.connect() as conn:
        ended = (
            await conn.execute(
                select(
                    actions.c.rule_id, actions.c.scheduled_at, actions.c.status, actions.c.reason
                )
                .where(actions.c.tenant_id == tenant_id)
                .where(actions.c.status.in_([ActionStatus.SKIPPED, ActionStatus.EXPIRED]))
            )
        ).all()
        told = (
            await conn.execute(
                select(
                    notifications.c.route_id,
                    notifications.c.event,
                    notifications.c.rule_id,
                    notifications.c.payload,
                ).where(notifications.c.tenant_id.in_([tenant_id, neighbour]))
            )
        ).all()
    one_offs_expired = sum(
        1 for rule_id, _, status, _ in ended if rule_id is None and status == ActionStatus.EXPIRED
    )
    assert one_offs_expired == (expiring if late_s > 60 else 0)  # past expires_at, not at it
    expected: Counter[tuple[Any, ...]] = Counter()
    for rule_id, scheduled_at, status, reason in ended:
        if status == ActionStatus.SKIPPED and reason not in POLICY_SKIPS:
            continue
        kind = (
            NotificationEvent.EXPIRED
            if status == ActionStatus.EXPIRED
            else NotificationEvent.SKIPPED
        )
        for route_id, (events, only_rule) in routes.items():
            if kind in events and only_rule in (None, rule_id):
                expected[
                    (
                        route_id,
                        kind,
                        rule_id,
                        scheduled_at.isoformat(),
                        None if kind is NotificationEvent.EXPIRED else reason,
                    )
                ] += 1
    got = Counter(
        (route_id, NotificationEvent(name), rule_id, payload["scheduled_at"], payload["reason"])
        for route_id, name, rule_id, payload in told
    )
    event(f"told: {sorted({kind.value for _, kind, *_ in got})}")
    assert got == expected
    assert all(route_id != neighbour_route for route_id, *_ in told)
