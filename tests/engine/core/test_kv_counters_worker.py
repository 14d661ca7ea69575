"""The lost-update report, replayed against a real `cadenza worker`: 30 one-offs due at once,
each reading a counter and writing it back plus one, at tenant concurrency 1 and 4, with
instant and 0.2 s scripts. Every counter ends at 30."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from counters import READ_MODIFY_WRITE
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncEngine
from stored import kv_value
from support.waiting import eventually
from workers import start_worker, stop

from engine.config import EngineConfig
from engine.service import EngineService
from engine.store.tables import actions, runs
from sandbox import Sandbox
from tenants.registry import create_tenant, update_tenant

ACTIONS = 30
CASES = {"c1-instant": (1, 0.0), "c1-slow": (1, 0.2), "c4-instant": (4, 0.0), "c4-slow": (4, 0.2)}


async def _tenants(db: AsyncEngine, sandbox: Sandbox) -> dict[str, str]:
    service = EngineService(db, sandbox, EngineConfig())
    made = {}
    now = datetime.now(UTC)
    for name, (concurrency, sleep_s) in CASES.items():
        async with db.begin() as conn:
            tenant, _ = await create_tenant(conn, name)
            await update_tenant(conn, tenant.id, quotas={"max_concurrency": concurrency})
        for n in range(ACTIONS):
            params = {"sleep_s": sleep_s}
            await service.submit_action(
                tenant.id, run_at=now, key=f"a{n}", code=READ_MODIFY_WRITE, params=params
            )
        made[name] = tenant.id
    return made


async def _all_succeeded(db: AsyncEngine) -> bool:
    query = select(func.count()).where(actions.c.status == "succeeded")
    async with db.connect() as conn:
        return int((await conn.execute(query)).scalar_one()) == ACTIONS * len(CASES)


async def test_concurrent_read_modify_writes_count_every_run(
    db: AsyncEngine, database_url: str, sandbox: Sandbox, tmp_path: Path
) -> None:
    tenants = await _tenants(db, sandbox)
    worker = start_worker(database_url, "n1", tmp_path, CADENZA_MAX_CONCURRENCY="12")
    try:
        await eventually(lambda: _all_succeeded(db), timeout_s=120)
    finally:
        stop(worker)
    counters = {
        name: await kv_value(db, tenant_id, "counter") for name, tenant_id in tenants.items()
    }
    assert counters == dict.fromkeys(CASES, ACTIONS)
    committed = select(runs.c.action_id, func.count()).where(runs.c.committed.is_(True))
    async with db.connect() as conn:
        per_action = (await conn.execute(committed.group_by(runs.c.action_id))).all()
    assert len(per_action) == ACTIONS * len(CASES) and {n for _, n in per_action} == {1}
