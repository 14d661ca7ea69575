"""The failing-streak de-duplication, as a property on the real database: for any sequence of
final outcomes of a rule, recorded in transactions of any size, its routes get exactly one
`failed` per failing streak and one `recovered` per streak that ended; a neighbour tenant's
route hears nothing of it."""

from __future__ import annotations

import itertools
from datetime import timedelta

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncEngine
from support.moments import START

from engine.domain.notifications import NotificationChannel, NotificationEvent, RouteSpec
from engine.domain.records import RuleSpec
from engine.runs.notices import FinalOutcome, notify_outcomes
from engine.service import EngineService
from engine.store.rows import NewRun
from engine.store.tables import notifications
from tenants.registry import create_tenant

FAILED, RECOVERED = NotificationEvent.FAILED, NotificationEvent.RECOVERED
#: Final outcomes (True: succeeded), cut into the transactions that record them.
BATCHES = st.lists(st.lists(st.booleans(), min_size=1, max_size=4), min_size=1, max_size=6)
_action_ids = itertools.count(1)


def expected(outcomes: list[bool]) -> list[NotificationEvent]:
    """The model: a failure after a success (or first) opens a streak, a success closes it."""
    events, failing = [], False
    for succeeded in outcomes:
        if not succeeded and not failing:
            events.append(FAILED)
        if succeeded and failing:
            events.append(RECOVERED)
        failing = not succeeded
    return events


def _final(tenant_id: str, rule_id: str, succeeded: bool, n: int) -> FinalOutcome:
    at = START + timedelta(seconds=n)
    run = NewRun(
        tenant_id=tenant_id,
        action_id=next(_action_ids),
        rule_id=rule_id,
        attempt=1,
        node="n",
        runtime="python",
        planned_at=at,
        started_at=at,
        finished_at=at,
        outcome="ok" if succeeded else "error",
        duration_ms=1.0,
        error=None if succeeded else "ValueError: boom",
    )
    return FinalOutcome(run, succeeded, at, "r")


async def _route(
    service: EngineService, tenant_id: str, events: list[str], rule_id: str | None
) -> int:
    spec = RouteSpec(
        tuple(NotificationEvent(e) for e in events),
        NotificationChannel.SLACK,
        "https://hooks.example.com/x",
        rule_id,
        None,
    )
    return (await service.create_notification_route(tenant_id, spec)).id


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(batches=BATCHES)
async def test_one_failed_per_streak_and_one_recovered_per_ended_streak(
    db: AsyncEngine, service: EngineService, tenant_id: str, batches: list[list[bool]]
) -> None:
    rule = await service.create_rule(
        tenant_id, RuleSpec(name="r", schedule="0 9 * * *", code="def main(ctx):\n    return 1\n")
    )
    async with db.begin() as conn:
        neighbour, _ = await create_tenant(conn, f"neighbour-{next(_action_ids)}")
    everything = ["failed", "recovered", "skipped", "expired"]
    tenant_route = await _route(service, tenant_id, ["failed"], None)
    rule_route = await _route(service, tenant_id, ["failed", "recovered"], rule.id)
    neighbour_route = await _route(service, neighbour.id, everything, None)
    n = 0
    for batch in batches:
        async with db.begin() as conn:
            finals = [_final(tenant_id, rule.id, ok, n + i) for i, ok in enumerate(batch)]
            await notify_outcomes(conn, finals)
        n += len(batch)
    async with db.connect() as conn:
        query = select(notifications.c.route_id, notifications.c.event).order_by(notifications.c.id)
        rows = [
            (r, e) for r, e in await conn.execute(query.where(notifications.c.rule_id == rule.id))
        ]
    model = expected([ok for batch in batches for ok in batch])
    assert [e for r, e in rows if r == rule_route] == model
    assert [e for r, e in rows if r == tenant_route] == [e for e in model if e == FAILED]
    assert all(r != neighbour_route for r, _ in rows)
