"""One-offs with `expires_at`: one that comes to be run after its expiry is expired (reason
`expires_at`, an `action.expired` event, no run); one picked up in time runs. `priority` is the
one submitted, else its rule's."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncEngine
from support.waiting import eventually

from engine.clock import ManualClock
from engine.domain.records import Action, ActionStatus, RuleSpec
from engine.errors import InvalidRule
from engine.service import EngineService
from engine.store.tables import events, runs

CODE = "def main(ctx):\n    return 1\n"


async def _finished(service: EngineService, tenant_id: str, action_id: int) -> Action | None:
    action = await service.get_action(tenant_id, action_id)
    return None if action.status in {ActionStatus.PENDING, ActionStatus.RUNNING} else action


async def test_a_one_off_found_after_its_expiry_is_expired_not_run(
    service: EngineService, tenant_id: str, clock: ManualClock, db: AsyncEngine
) -> None:
    run_at = clock.now() + timedelta(minutes=1)
    submitted = await service.submit_action(
        tenant_id, run_at=run_at, code=CODE, expires_at=run_at + timedelta(minutes=5)
    )
    assert submitted.is_new and submitted.action.expires_at == run_at + timedelta(minutes=5)
    clock.set(run_at + timedelta(minutes=6))  # the engine was down until after the expiry
    await service.start()
    done = await eventually(lambda: _finished(service, tenant_id, submitted.action.id))
    assert (done.status, done.reason) == (ActionStatus.EXPIRED, "expires_at")
    async with db.connect() as conn:
        ran = (await conn.execute(select(runs.c.id))).all()
        expired = (
            await conn.execute(select(events.c.payload).where(events.c.type == "action.expired"))
        ).all()
    assert ran == []
    assert [p["action_id"] for (p,) in expired] == [submitted.action.id]


async def test_a_one_off_picked_up_before_its_expiry_runs(
    service: EngineService, tenant_id: str, clock: ManualClock
) -> None:
    run_at = clock.now() + timedelta(minutes=1)
    submitted = await service.submit_action(
        tenant_id, run_at=run_at, code=CODE, expires_at=run_at + timedelta(minutes=5)
    )
    clock.set(run_at + timedelta(minutes=4))
    await service.start()
    done = await eventually(lambda: _finished(service, tenant_id, submitted.action.id))
    assert done.status is ActionStatus.SUCCEEDED


@pytest.mark.parametrize("after_s", [0, -1, -3600], ids=["at-run_at", "1s-before", "1h-before"])
async def test_an_expiry_not_after_run_at_is_refused_and_saves_nothing(
    service: EngineService, tenant_id: str, clock: ManualClock, after_s: int
) -> None:
    run_at = clock.now() + timedelta(minutes=1)
    with pytest.raises(InvalidRule) as refused:
        await service.submit_action(
            tenant_id,
            run_at=run_at,
            code=CODE,
            key="k",
            expires_at=run_at + timedelta(seconds=after_s),
        )
    assert refused.value.field == "expires_at"
    assert (await service.list_actions(tenant_id)).items == []


async def test_priority_is_the_submitted_one_else_the_rules(
    service: EngineService, tenant_id: str, clock: ManualClock
) -> None:
    rule = await service.create_rule(
        tenant_id, RuleSpec(name="r", schedule="every 1h", code=CODE, priority=7)
    )
    run_at = clock.now() + timedelta(minutes=1)
    own = await service.submit_action(tenant_id, run_at=run_at, code=CODE, priority=-5)
    of_rule = await service.submit_action(tenant_id, run_at=run_at, rule_id=rule.id)
    chosen = await service.submit_action(tenant_id, run_at=run_at, rule_id=rule.id, priority=900)
    plain = await service.submit_action(tenant_id, run_at=run_at, code=CODE)
    priorities = [s.action.priority for s in (own, of_rule, chosen, plain)]
    assert priorities == [-5, 7, 900, 0]


async def test_a_second_submit_with_its_key_is_not_new_and_moves_it(
    service: EngineService, tenant_id: str, clock: ManualClock
) -> None:
    run_at = clock.now() + timedelta(minutes=1)
    first = await service.submit_action(tenant_id, run_at=run_at, code=CODE, key="k")
    again = await service.submit_action(
        tenant_id, run_at=run_at + timedelta(minutes=1), code=CODE, key="k", priority=3
    )
    assert (first.is_new, again.is_new) == (True, False)
    assert again.action.id == first.action.id
    assert (again.action.due_at, again.action.priority) == (run_at + timedelta(minutes=1), 3)
