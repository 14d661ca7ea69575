"""The loop on a controllable clock: runs on time, chains from the scheduled time, retries,
records every attempt, commits effects once."""

from __future__ import annotations

from datetime import timedelta

from failing_rule import start_failing_rule
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncEngine
from stored import kv_value
from support.waiting import eventually

from engine.clock import ManualClock
from engine.domain.records import ActionStatus, RuleSpec
from engine.service import EngineService
from engine.store.tables import events

COUNTER = """
def main(ctx):
    n = ctx.kv.get("count", 0) + 1
    ctx.kv.set("count", n)
    ctx.emit("counted", {"n": n, "occurrence": ctx.occurrence_id})
    return n
"""


async def test_rule_runs_at_due_time_and_chains_the_next(
    service: EngineService, tenant_id: str, clock: ManualClock, db: AsyncEngine
) -> None:
    rule = await service.create_rule(
        tenant_id, RuleSpec(name="c", schedule="* * * * *", code=COUNTER)
    )
    await service.start()
    first_due = rule.next_run_at
    assert first_due is not None
    clock.set(first_due)

    async def one_run() -> object:
        return (await service.list_runs(tenant_id, rule_id=rule.id)).items

    runs = await eventually(one_run)
    assert runs[0].outcome == "ok" and runs[0].result == 1 and runs[0].committed
    assert await kv_value(db, tenant_id, "count") == 1
    actions = (await service.list_actions(tenant_id, rule_id=rule.id)).items
    assert [(a.status, a.scheduled_at) for a in actions] == [
        (ActionStatus.PENDING, first_due + timedelta(minutes=1)),
        (ActionStatus.SUCCEEDED, first_due),
    ]
    async with db.connect() as conn:
        stored = (
            await conn.execute(select(events.c.type, events.c.payload, events.c.run_id))
        ).all()
    assert [(t, p["n"], run_id) for t, p, run_id in stored] == [("counted", 1, runs[0].id)]


async def test_failing_script_is_retried_then_fails_with_event(
    service: EngineService, tenant_id: str, clock: ManualClock, db: AsyncEngine
) -> None:
    _, runs_of_rule = await start_failing_rule(service, tenant_id, clock, max_attempts=2)
    first = await eventually(lambda: runs_of_rule(1))
    assert first[0].outcome == "error" and "boom" in (first[0].error or "")
    clock.advance(timedelta(seconds=2))  # past the retry's backoff, before the next occurrence
    both = await eventually(lambda: runs_of_rule(2))
    assert sorted(r.attempt for r in both) == [1, 2]
    assert len({r.action_id for r in both}) == 1
    failed = (await service.list_actions(tenant_id, status="failed")).items
    assert len(failed) == 1 and failed[0].attempt == 2

    async def failure_event() -> object:
        async with db.connect() as conn:
            query = select(events.c.run_id).where(events.c.type == "run.failed")
            return (await conn.execute(query)).all()

    last_attempt = next(r for r in both if r.attempt == 2)
    assert [row.run_id for row in await eventually(failure_event)] == [last_attempt.id]
