"""A rule's chain plans each next occurrence once, however many attempts an occurrence takes."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from failing_rule import start_failing_rule
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncEngine
from support.waiting import eventually

from engine.clock import ManualClock
from engine.service import EngineService
from engine.store.tables import actions


async def test_retry_of_an_occurrence_does_not_plan_the_next_one_again(
    service: EngineService, tenant_id: str, clock: ManualClock, db: AsyncEngine
) -> None:
    rule, runs = await start_failing_rule(service, tenant_id, clock, max_attempts=3)
    await eventually(lambda: runs(1))
    clock.advance(timedelta(seconds=2))  # past the retry's backoff, before the next occurrence
    await eventually(lambda: runs(2))
    first, second = rule.next_run_at, rule.next_run_at + timedelta(minutes=1)  # type: ignore[operator]
    assert await _pending(db) == [(first, 2), (second, 0)]  # the third attempt, and 09:02 once
    # cancelling the retry moves nothing on either: 09:02 was planned by the first attempt
    await service.cancel_action(
        tenant_id, next(a.id for a in await _actions(service, tenant_id) if a.attempt == 2)
    )
    assert await _pending(db) == [(second, 0)]


async def _actions(service: EngineService, tenant_id: str) -> list[Any]:
    return (await service.list_actions(tenant_id, status="pending")).items


async def _pending(db: AsyncEngine) -> list[tuple[datetime, int]]:
    query = select(actions.c.scheduled_at, actions.c.attempt).where(actions.c.status == "pending")
    async with db.connect() as conn:
        return sorted(tuple(row) for row in await conn.execute(query))  # type: ignore[misc]
