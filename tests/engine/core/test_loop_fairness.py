"""Fairness: a tenant with a large backlog of scripts that always time out cannot hold back
another tenant's action: per-tenant limits leave it a slot of the node's capacity."""

from __future__ import annotations

from dataclasses import replace

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncEngine
from waiting import eventually

from engine.clock import ManualClock
from engine.config import EngineConfig
from engine.service import EngineService
from engine.store.tables import actions
from sandbox import Sandbox
from tenants.registry import create_tenant

SPIN = "def main(ctx):\n    while True:\n        pass\n"
QUICK = "def main(ctx):\n    return 'b'\n"
BACKLOG = 40


async def test_busy_tenant_does_not_delay_another(
    db: AsyncEngine,
    sandbox: Sandbox,
    tenant_id: str,
    clock: ManualClock,
    engine_config: EngineConfig,
) -> None:
    async with db.begin() as conn:
        other, _ = await create_tenant(conn, "other")
    service = EngineService(db, sandbox, replace(engine_config, max_concurrency=3), clock)
    try:
        for n in range(BACKLOG):
            await service.submit_action(tenant_id, run_at=clock.now(), key=f"spin{n}", code=SPIN)
        await service.start()

        async def spinning() -> object:
            return len((await service.list_actions(tenant_id, status="running")).items) >= 2

        await eventually(spinning)
        await service.submit_action(other.id, run_at=clock.now(), code=QUICK)

        async def other_ran() -> object:
            return (await service.list_runs(other.id)).items

        runs = await eventually(other_ran, timeout_s=20)
        async with db.connect() as conn:
            unfinished = (
                await conn.execute(
                    select(func.count())
                    .select_from(actions)
                    .where(
                        actions.c.tenant_id == tenant_id,
                        actions.c.status.in_(("pending", "running")),
                    )
                )
            ).scalar_one()
    finally:
        await service.stop()
    assert runs[0].outcome == "ok"
    # Claimed ahead counts as unfinished: the busy tenant may claim its whole backlog at once.
    assert unfinished > BACKLOG // 2, "the busy tenant's backlog was still there when the other ran"
