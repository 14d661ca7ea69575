"""Fairness: a tenant with a large backlog of scripts that always time out cannot hold back
another tenant's action: per-tenant limits and the node's fair run slots (`engine.loop.run_slots`)
leave it a slot of the node's capacity."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest_asyncio
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncEngine
from support.sandbox_fixtures import python_sandbox
from support.waiting import eventually

from engine.clock import ManualClock
from engine.config import EngineConfig
from engine.service import EngineService
from engine.store.tables import actions
from sandbox import Sandbox
from tenants.registry import create_tenant, update_tenant


@pytest_asyncio.fixture(loop_scope="module")
async def sandbox() -> AsyncIterator[Sandbox]:
    """A sandbox of each test's own (not the module's): these tests time how soon a run gets a
    worker, which a previous test's leftover workers would skew."""
    async with python_sandbox() as fresh:
        yield fresh


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


#: Near its timeout, like a script waiting on something slow: it holds a slot, not a core.
NEAR_TIMEOUT = "import time\ndef main(ctx):\n    time.sleep(4)\n"
B_STREAM = 4


async def test_a_saturating_tenant_leaves_a_slot_for_another_tenants_stream(
    db: AsyncEngine, sandbox: Sandbox, tenant_id: str, engine_config: EngineConfig
) -> None:
    """Tenant A may run as many scripts as the node has slots, and has more: B's actions, one
    every 250 ms, never wait for one of A's 4 s runs to end. Asserted on the runs' own times,
    not a latency bound: B's runs all start before the first of A's runs ends."""
    async with db.begin() as conn:
        other, _ = await create_tenant(conn, "other")
        await update_tenant(conn, tenant_id, quotas={"max_concurrency": 20})
    config = replace(engine_config, max_concurrency=4, wake_cap_s=0.2)
    service = EngineService(db, sandbox, config)  # the real clock: the runs' times are compared
    start = datetime.now(UTC) + timedelta(seconds=2)
    for n in range(20):
        await service.submit_action(tenant_id, run_at=start, key=f"a{n}", code=NEAR_TIMEOUT)
    for n in range(B_STREAM):
        at = start + timedelta(seconds=1 + n / 4)
        await service.submit_action(other.id, run_at=at, key=f"b{n}", code=QUICK)
    try:
        await service.start()

        async def all_of_b() -> object:
            runs = (await service.list_runs(other.id)).items
            return runs if len(runs) == B_STREAM else None

        runs = await eventually(all_of_b, timeout_s=60)
        busy = (await service.list_actions(tenant_id, status="running")).items
        a_ended = [r.finished_at for r in (await service.list_runs(tenant_id)).items]
    finally:
        await service.stop()
    assert busy, "A still had runs going: it saturated the node the whole time"
    assert all(r.outcome == "ok" for r in runs)
    last_b_start = max(r.started_at for r in runs)
    assert not a_ended or last_b_start < min(a_ended), (
        f"B waited for one of A's runs: its last run started at {last_b_start}, "
        f"A's first run ended at {min(a_ended)}"
    )
