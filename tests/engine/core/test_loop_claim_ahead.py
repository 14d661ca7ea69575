"""An action may be claimed a few milliseconds before it is due (so the claim's transaction
is out of the way at the due time), but its run never starts before the due time."""

from __future__ import annotations

from datetime import timedelta

from waiting import eventually

from engine.clock import ManualClock
from engine.records import ActionStatus, RuleSpec
from engine.service import EngineService
from engine.tenant_loop import CLAIM_AHEAD


async def test_claimed_ahead_but_started_at_the_due_time(
    service: EngineService, tenant_id: str, clock: ManualClock
) -> None:
    rule = await service.create_rule(
        tenant_id, RuleSpec(name="r", schedule="* * * * *", code="def main(ctx):\n    return 1\n")
    )
    due = rule.next_run_at
    assert due is not None
    await service.start()
    clock.set(due - CLAIM_AHEAD / 2)

    async def claimed() -> bool:
        actions = (await service.list_actions(tenant_id, rule_id=rule.id)).items
        return any(a.scheduled_at == due and a.status is ActionStatus.RUNNING for a in actions)

    await eventually(claimed)
    assert (await service.list_runs(tenant_id, rule_id=rule.id)).items == [], "not started early"
    clock.set(due + timedelta(milliseconds=1))

    async def runs() -> object:
        return (await service.list_runs(tenant_id, rule_id=rule.id)).items

    (run,) = await eventually(runs)
    assert run.outcome == "ok" and run.started_at >= due
