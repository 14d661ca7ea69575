"""Priority is honoured among a tenant's actions due at one instant, whether or not the others
were read or claimed ahead: at `max_concurrency` 1, one priority-10 action among 1 000 of
priority 0 is among the first runs."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncEngine
from support.waiting import eventually

from bench.ours import one_off
from engine.clock import ManualClock
from engine.domain.changes import Change
from engine.loop.claim_lead import CLAIM_AHEAD
from engine.service import EngineService
from engine.store.actions import insert_actions
from engine.store.tables import actions, runs
from tenants.registry import update_tenant

CODE = "def main(ctx):\n    return None\n"
BACKLOG = 1000


async def _backlog(
    db: AsyncEngine, tenant_id: str, due_at: datetime, priority: int, n: int
) -> None:
    row = one_off(tenant_id, CODE, due_at, priority=priority)
    async with db.begin() as conn:
        await update_tenant(conn, tenant_id, quotas={"max_concurrency": 1})
        await insert_actions(conn, [row] * n)


async def _run_order(db: AsyncEngine, count: int) -> list[int] | None:
    """Priorities of the first `count` runs, in the order they were recorded."""
    query = (
        select(actions.c.priority)
        .join(runs, runs.c.action_id == actions.c.id)
        .order_by(runs.c.id)
        .limit(count)
    )
    async with db.connect() as conn:
        found = [p for (p,) in await conn.execute(query)]
    return found if len(found) == count else None


@pytest.mark.parametrize("arrives", ["before", "after-the-claim"])
async def test_the_higher_priority_action_is_among_the_first_runs(
    service: EngineService, tenant_id: str, clock: ManualClock, db: AsyncEngine, arrives: str
) -> None:
    due_at = clock.now() + timedelta(seconds=10)
    await _backlog(db, tenant_id, due_at, 0, BACKLOG)
    if arrives == "before":
        await _backlog(db, tenant_id, due_at, 10, 1)  # the newest: last in id order
    await service.start()
    clock.set(due_at - CLAIM_AHEAD / 2)  # the backlog is read ahead and a window claimed
    claimed = select(actions.c.id).where(actions.c.status == "running")
    await eventually(lambda: _fetch(db, claimed))
    if arrives == "after-the-claim":
        await _backlog(db, tenant_id, due_at, 10, 1)  # as another node would add it
        assert service.node is not None
        service.node.wake(tenant_id, Change.ADDED)
        urgent = claimed.where(actions.c.priority == 10)
        await eventually(lambda: _fetch(db, urgent))  # claimed past the full claim window
    clock.set(due_at)
    first = await eventually(lambda: _run_order(db, 3), timeout_s=60)
    assert 10 in first[:2], f"the priority-10 action ran behind {first}"


async def _fetch(db: AsyncEngine, query: object) -> list[object]:
    async with db.connect() as conn:
        return list((await conn.execute(query)).all())  # type: ignore[call-overload]
