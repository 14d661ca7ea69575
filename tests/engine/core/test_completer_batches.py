"""A batch of completions never fails for one record, and never drops runs while the database
is away: the completer isolates a record the database refuses, and waits out a lock."""

from __future__ import annotations

import asyncio
import logging
import shutil
import sqlite3
from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest
import pytest_asyncio
from prometheus_client import REGISTRY
from sqlalchemy import func, select, update
from sqlalchemy.ext.asyncio import AsyncEngine
from stored import kv_value

from engine.clock import ManualClock
from engine.config import EngineConfig
from engine.deps import Deps
from engine.runs.commit import Completion, Recorded
from engine.runs.recorder import Completer
from engine.runs.runner import Claimed, RunEnv, execute
from engine.runs.unrecorded import UnrecordedWrites
from engine.service import EngineService
from engine.store import loop_statements as queue
from engine.store.tables import actions, events, runs
from sandbox import Sandbox
from tenants.db import SQLITE_BUSY_TIMEOUT_MS, create_engine
from tenants.quotas import load_profile
from tenants.registry import create_tenant
from tenants.tables import kv

INNOCENT = "def main(ctx):\n    ctx.kv.incr('done', 1)\n    ctx.emit('done', {})\n    print('ok')\n"
POISONED = "def main(ctx):\n    ctx.kv.set('poison', 1)\n    ctx.emit('poison', {})\n"
#: Longer than SQLite's busy timeout: a writer gives up waiting before the lock is released.
HOLD_S = SQLITE_BUSY_TIMEOUT_MS / 1000 + 1.5


async def _completions(
    db: AsyncEngine, sandbox: Sandbox, clock: ManualClock, tenant_id: str
) -> list[Completion]:
    """Claim the tenant's due actions and run each in the real sandbox."""
    now = clock.now()
    async with db.begin() as conn:
        rows = await queue.fetch_due(conn, tenant_id, now, 100, ())
        won = await queue.claim(conn, rows, "test-node", now, now + timedelta(minutes=5))
        profile = await load_profile(conn, tenant_id)
    env = RunEnv(sandbox, db, clock, "test-node")
    return [
        await execute(env, Claimed(row, won[row.id], now), profile, UnrecordedWrites())
        for row in rows
    ]


@pytest_asyncio.fixture(loop_scope="module")
async def completer(
    db: AsyncEngine, sandbox: Sandbox, engine_config: EngineConfig, clock: ManualClock
) -> AsyncIterator[Completer]:
    deps = Deps(db, sandbox, engine_config, clock, lambda _: None)
    made = Completer(deps, engine_config.completion_batch_size)
    task = asyncio.create_task(made.run())
    try:
        yield made
    finally:
        task.cancel()


async def test_a_record_the_database_refuses_fails_alone(
    db: AsyncEngine,
    sandbox: Sandbox,
    clock: ManualClock,
    tenant_id: str,
    completer: Completer,
    engine_config: EngineConfig,
) -> None:
    async with db.begin() as conn:
        other, _ = await create_tenant(conn, "innocent")
    service = EngineService(db, sandbox, engine_config, clock)
    await service.submit_action(tenant_id, run_at=clock.now(), code=POISONED)
    for n in range(20):
        await service.submit_action(other.id, run_at=clock.now(), key=f"i{n}", code=INNOCENT)
    innocent = await _completions(db, sandbox, clock, other.id)
    [bad] = await _completions(db, sandbox, clock, tenant_id)
    # A lone surrogate cannot be encoded for either database: this record cannot be stored.
    unstorable = replace(bad, run=replace(bad.run, stdout="\ud800"))
    batch = [*innocent[:10], unstorable, *innocent[10:]]
    recorded = await asyncio.gather(*(completer.submit(c) for c in batch))

    assert recorded[10] is Recorded.UNSTORABLE
    assert recorded[:10] + recorded[11:] == [Recorded.COMMITTED] * 20
    assert await kv_value(db, other.id, "done") == 20
    async with db.connect() as conn:
        done = (await conn.execute(select(func.count()).where(events.c.type == "done"))).scalar()
        poison = (await conn.execute(select(events.c.id).where(events.c.type == "poison"))).all()
        ok = (
            await conn.execute(
                select(func.count()).where(
                    actions.c.status == "succeeded", actions.c.tenant_id == other.id
                )
            )
        ).scalar()
        [run] = (await conn.execute(select(runs).where(runs.c.tenant_id == tenant_id))).mappings()
        [action] = (
            await conn.execute(select(actions).where(actions.c.tenant_id == tenant_id))
        ).mappings()
    assert done == 20 and ok == 20
    assert poison == [] and await kv_value(db, tenant_id, "poison") is None
    assert run["outcome"] == "crashed" and not run["committed"]
    assert run["error"].startswith("engine error: this run's record could not be stored")
    assert (action["status"], action["attempt"]) == ("pending", 1), "retried like a failed run"


async def test_a_run_whose_claim_was_taken_is_refused_counted_and_logged(
    db: AsyncEngine,
    sandbox: Sandbox,
    clock: ManualClock,
    tenant_id: str,
    completer: Completer,
    engine_config: EngineConfig,
    caplog: pytest.LogCaptureFixture,
) -> None:
    service = EngineService(db, sandbox, engine_config, clock)
    await service.submit_action(tenant_id, run_at=clock.now(), code=INNOCENT)
    [completion] = await _completions(db, sandbox, clock, tenant_id)
    async with db.begin() as conn:  # another node's claim, as after a lapsed lease
        await conn.execute(update(actions).values(version=actions.c.version + 1))
    lost_before = _sample("cadenza_claims_lost_total")

    with caplog.at_level(logging.WARNING, logger="cadenza.engine"):
        assert await completer.submit(completion) is Recorded.LOST

    assert _sample("cadenza_claims_lost_total") == lost_before + 1
    [warning] = [r for r in caplog.records if "claim on it had lapsed" in r.getMessage()]
    assert str(completion.action_id) in warning.getMessage()
    assert await kv_value(db, tenant_id, "done") is None, "a lost run's effects are refused"
    async with db.connect() as conn:
        [action] = (await conn.execute(select(actions))).mappings()
    assert action["status"] == "running", "left to the node that holds it now"


def _sample(name: str) -> float:
    return REGISTRY.get_sample_value(name) or 0.0


async def test_a_sqlite_write_lock_held_past_the_busy_timeout_is_waited_out(
    sqlite_template: Path,
    tmp_path: Path,
    sandbox: Sandbox,
    clock: ManualClock,
    engine_config: EngineConfig,
) -> None:
    path = tmp_path / "locked.db"
    shutil.copy(sqlite_template, path)
    db = create_engine(f"sqlite+aiosqlite:///{path}")
    async with db.begin() as conn:
        tenant, _ = await create_tenant(conn, "acme")
    service = EngineService(db, sandbox, engine_config, clock)
    for n in range(10):
        await service.submit_action(tenant.id, run_at=clock.now(), key=f"i{n}", code=INNOCENT)
    batch = await _completions(db, sandbox, clock, tenant.id)
    deps = Deps(db, sandbox, engine_config, clock, lambda _: None)
    completer = Completer(deps, engine_config.completion_batch_size)
    task = asyncio.create_task(completer.run())
    holder = sqlite3.connect(path, timeout=30)
    holder.execute("BEGIN IMMEDIATE")  # another process's writer, held past the busy timeout
    try:
        recorded = [completer.submit(c) for c in batch]
        await asyncio.sleep(HOLD_S)  # the scenario itself: the lock is held this long
        assert not any(r.done() for r in recorded), "nothing can be written while it is held"
        holder.rollback()
        assert await asyncio.gather(*recorded) == [Recorded.COMMITTED] * 10
        assert await kv_value(db, tenant.id, "done") == 10
        async with db.connect() as conn:
            assert (await conn.execute(select(func.count()).select_from(runs))).scalar() == 10
            assert (await conn.execute(select(func.count()).select_from(kv))).scalar() == 1
    finally:
        holder.close()
        task.cancel()
        await db.dispose()
