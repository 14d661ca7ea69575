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


def expected(outcomes: list[bool], routed_from: int = 0) -> list[NotificationEvent]:
    """The model: a failure after a success (or first) opens a streak, told as `failed` when a
    route asks for it (from outcome `routed_from` on); a success closes the streak, told as
    `recovered` when its `failed` was told."""
    events, failing, told = [], False, False
    for n, succeeded in enumerate(outcomes):
        if not succeeded and not failing:
            told = n >= routed_from
            events += [FAILED] if told else []
        if succeeded and failing and told:
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
@given(batches=BATCHES, route_at=st.integers(0, 6))
async def test_one_failed_per_streak_and_one_recovered_per_ended_streak(
    db: AsyncEngine,
    service: EngineService,
    tenant_id: str,
    batches: list[list[bool]],
    route_at: int,
) -> None:
    """The rule's route is added before batch `route_at` (never, past the end); a tenant route
    for `recovered` only is there from the start: it hears the end of every told streak."""
    rule = await service.create_rule(
        tenant_id, RuleSpec(name="r", schedule="0 9 * * *", code="def main(ctx):\n    return 1\n")
    )
    async with db.begin() as conn:
        neighbour, _ = await create_tenant(conn, f"neighbour-{next(_action_ids)}")
    everything = ["failed", "recovered", "skipped", "expired"]
    tenant_route = await _route(service, tenant_id, ["recovered"], None)
    neighbour_route = await _route(service, neighbour.id, everything, None)
    rule_route, n, routed_from = None, 0, sum(len(b) for b in batches)
    for i, batch in enumerate(batches):
        if i == route_at:
            rule_route = await _route(service, tenant_id, ["failed", "recovered"], rule.id)
            routed_from = n
        async with db.begin() as conn:
            finals = [_final(tenant_id, rule.id, ok, n + k) for k, ok in enumerate(batch)]
            await notify_outcomes(conn, finals)
        n += len(batch)
    async with db.connect() as conn:
        query = select(notifications.c.route_id, notifications.c.event).order_by(notifications.c.id)
        rows = [
            (r, e) for r, e in await conn.execute(query.where(notifications.c.rule_id == rule.id))
        ]
    model = expected([ok for batch in batches for ok in batch], routed_from)
    assert [e for r, e in rows if r == rule_route] == model
    assert [e for r, e in rows if r == tenant_route] == [e for e in model if e == RECOVERED]
    assert all(r != neighbour_route for r, _ in rows)
