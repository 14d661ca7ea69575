"""A suspended tenant's rules wait: its due actions stay pending while other tenants run, and
run once it is resumed — nothing is lost."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy.ext.asyncio import AsyncEngine
from support.waiting import eventually

from engine.clock import ManualClock
from engine.domain.records import ActionStatus, RuleSpec
from engine.service import EngineService
from tenants.registry import TenantStatus, create_tenant, set_status

SCRIPT = "def main(ctx):\n    return ctx.rule.name\n"


async def test_suspended_tenant_waits_and_runs_after_resume(
    service: EngineService, tenant_id: str, clock: ManualClock, db: AsyncEngine
) -> None:
    async with db.begin() as conn:
        other, _ = await create_tenant(conn, "other")
    spec = RuleSpec(name="daily", schedule="0 9 * * *", code=SCRIPT)
    held = await service.create_rule(tenant_id, spec)
    running = await service.create_rule(other.id, spec)
    assert held.next_run_at == running.next_run_at is not None
    async with db.begin() as conn:
        await set_status(conn, tenant_id, TenantStatus.SUSPENDED)
    await service.start()
    clock.set(held.next_run_at)

    async def runs_of(tenant: str) -> list[object]:
        return (await service.list_runs(tenant)).items

    await eventually(lambda: runs_of(other.id))
    assert await runs_of(tenant_id) == []
    pending = (await service.list_actions(tenant_id, rule_id=held.id)).items
    assert [a.status for a in pending] == [ActionStatus.PENDING]

    async with db.begin() as conn:
        await set_status(conn, tenant_id, TenantStatus.ACTIVE)
    clock.advance(timedelta(seconds=1))  # past the dispatcher's capped sleep
    resumed = await eventually(lambda: runs_of(tenant_id))
    assert [r.outcome for r in resumed] == ["ok"]
    assert resumed[0].planned_at == held.next_run_at
