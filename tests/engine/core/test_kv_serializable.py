"""Serializable kv through the engine: concurrent runs of one tenant never lose each other's
updates, whatever the tenant's `max_concurrency`; `incr` and `set_if` in every runtime."""

from __future__ import annotations

from dataclasses import replace

import pytest
from counters import READ_MODIFY_WRITE
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncEngine
from stored import kv_value
from support.waiting import eventually

from engine.clock import ManualClock
from engine.config import EngineConfig
from engine.service import EngineService
from engine.store.tables import actions, events, runs
from sandbox import Sandbox
from tenants.registry import update_tenant

ACTIONS = 24
INCR_PY = "def main(ctx):\n    ctx.kv.incr('counter', 2)\n    ctx.kv.incr('counter', -1)\n"
#: `set_if` as a lock: only one run may see the key absent and take it.
SET_IF_PY = """
def main(ctx):
    if ctx.kv.set_if("owner", None, ctx.occurrence_id):
        ctx.emit("won", {"by": ctx.occurrence_id})
        return True
    return False
"""
INCR_WAT = """(module
  (import "cadenza" "kv_incr" (func $incr (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 0) "counter")
  (data (i32.const 16) "1")
  (func (export "main")
    (drop (call $incr (i32.const 0) (i32.const 7) (i32.const 16) (i32.const 1)))))
"""
SET_IF_WAT = """(module
  (import "cadenza" "kv_set_if" (func $set_if (param i32 i32 i32 i32 i32 i32) (result i32)))
  (import "cadenza" "emit" (func $emit (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 0) "owner")
  (data (i32.const 16) "null")
  (data (i32.const 32) "\\"taken\\"")
  (data (i32.const 48) "won")
  (func (export "main")
    (if (call $set_if (i32.const 0) (i32.const 5) (i32.const 16) (i32.const 4)
                      (i32.const 32) (i32.const 7))
      (then (drop (call $emit (i32.const 48) (i32.const 3) (i32.const 16) (i32.const 4)))))))
"""
SCRIPTS = {
    "python": (INCR_PY, SET_IF_PY),
    "micropython": (INCR_PY, SET_IF_PY),
    "wasm": (INCR_WAT, SET_IF_WAT),
}


async def _engine(
    db: AsyncEngine, sandbox: Sandbox, config: EngineConfig, clock: ManualClock, tenant: str, c: int
) -> EngineService:
    async with db.begin() as conn:
        await update_tenant(conn, tenant, quotas={"max_concurrency": c})
    return EngineService(db, sandbox, replace(config, max_concurrency=8), clock)


async def _count(db: AsyncEngine, query: object) -> int:
    async with db.connect() as conn:
        return int((await conn.execute(query)).scalar_one())  # type: ignore[call-overload]


async def _all_finished(db: AsyncEngine, tenant_id: str, count: int) -> bool:
    finished = select(func.count()).where(
        actions.c.tenant_id == tenant_id, actions.c.status == "succeeded"
    )
    return await _count(db, finished) == count


async def _submit_all(
    service: EngineService, tenant_id: str, clock: ManualClock, **kw: object
) -> None:
    for n in range(ACTIONS):
        await service.submit_action(tenant_id, run_at=clock.now(), key=f"a{n}", **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize("sleep_s", [0.0, 0.2], ids=["instant", "0.2s"])
@pytest.mark.parametrize("concurrency", [1, 4])
async def test_read_modify_write_counter_counts_every_run(
    db: AsyncEngine,
    sandbox: Sandbox,
    engine_config: EngineConfig,
    clock: ManualClock,
    tenant_id: str,
    concurrency: int,
    sleep_s: float,
) -> None:
    service = await _engine(db, sandbox, engine_config, clock, tenant_id, concurrency)
    await _submit_all(
        service, tenant_id, clock, code=READ_MODIFY_WRITE, params={"sleep_s": sleep_s}
    )
    try:
        await service.start()
        await eventually(lambda: _all_finished(db, tenant_id, ACTIONS), timeout_s=120)
    finally:
        await service.stop()
    assert await kv_value(db, tenant_id, "counter") == ACTIONS
    committed = select(runs.c.result).where(runs.c.committed.is_(True))
    async with db.connect() as conn:
        seen = sorted(r for (r,) in await conn.execute(committed))
        conflicts = await _count(db, select(func.count()).where(runs.c.error.like("kv_conflict%")))
    assert seen == list(range(ACTIONS)), "each committed run read the previous one's value"
    if concurrency == 1:
        assert conflicts == 0, "one at a time, each run reads its predecessor's writes"
    elif sleep_s:
        assert conflicts > 0, "overlapping runs read stale values: some had to run again"


@pytest.mark.parametrize("runtime", list(SCRIPTS))
async def test_incr_and_set_if_are_exact_in_every_runtime(
    db: AsyncEngine,
    every_runtime: Sandbox,
    engine_config: EngineConfig,
    clock: ManualClock,
    tenant_id: str,
    runtime: str,
) -> None:
    incr, set_if = SCRIPTS[runtime]
    service = await _engine(db, every_runtime, engine_config, clock, tenant_id, 4)
    await _submit_all(service, tenant_id, clock, code=incr, runtime=runtime)
    for n in range(ACTIONS):
        await service.submit_action(
            tenant_id, run_at=clock.now(), key=f"lock{n}", code=set_if, runtime=runtime
        )
    try:
        await service.start()
        await eventually(lambda: _all_finished(db, tenant_id, 2 * ACTIONS), timeout_s=120)
    finally:
        await service.stop()
    assert await kv_value(db, tenant_id, "counter") == ACTIONS  # each run adds 1 in all
    incr_conflicts = select(func.count()).where(
        runs.c.error.like("kv_conflict%"),
        runs.c.action_id.in_(select(actions.c.id).where(actions.c.key.like("a%"))),
    )
    assert await _count(db, incr_conflicts) == 0, "increments need no read: they never conflict"
    won = select(func.count()).select_from(events).where(events.c.type == "won")
    assert await _count(db, won) == 1, "exactly one run took the lock"
    assert await kv_value(db, tenant_id, "owner") is not None
