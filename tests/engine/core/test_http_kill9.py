"""kill -9 in the middle of a script's HTTP call: the occurrence runs again on another worker,
the receiver sees the same idempotency key twice (the call is at least once), and the run's own
effects are committed exactly once."""

from __future__ import annotations

import os
import signal
from datetime import UTC, datetime
from pathlib import Path

from http_trials import allow
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncEngine
from stored import kv_value
from support.stand_in import StandIn
from support.waiting import eventually
from workers import start_worker, stop

from engine.service import EngineService
from engine.store.tables import actions, runs

HTTP_ENV = {"CADENZA_HTTP_SCHEMES": "https,http", "CADENZA_HTTP_ALLOW_PRIVATE": "true"}


async def _status(db: AsyncEngine, action_id: int) -> str:
    async with db.connect() as conn:
        query = select(actions.c.status).where(actions.c.id == action_id)
        return str((await conn.execute(query)).scalar_one())


async def test_kill_9_mid_call_repeats_the_call_with_its_key_and_commits_once(
    service: EngineService,
    tenant_id: str,
    db: AsyncEngine,
    database_url: str,
    tmp_path: Path,
    stand_in: StandIn,
) -> None:
    await allow(db, tenant_id, stand_in.origin)
    code = (
        "def main(ctx):\n"
        f"    ctx.http.request('POST', '{stand_in.origin}/hold', None, 'order 42')\n"
        "    ctx.kv.incr('sent', 1)\n"
        "    return ctx.attempt\n"
    )
    submitted = await service.submit_action(
        tenant_id, run_at=datetime.now(UTC), key="once", code=code
    )
    action_id = submitted.action.id
    first = start_worker(database_url, "first", tmp_path, **HTTP_ENV)
    try:
        await eventually(lambda: _received(stand_in, 1), timeout_s=60)
        os.kill(first.pid, signal.SIGKILL)
        first.wait()
    finally:
        stop(first)
    stand_in.release.set()
    second = start_worker(database_url, "second", tmp_path, **HTTP_ENV)
    try:
        await eventually(lambda: _succeeded(db, action_id), timeout_s=90)
    finally:
        stop(second)
    keys = [headers["Idempotency-Key"] for _, _, headers, _ in stand_in.received]
    assert len(keys) == 2 and keys[0] == keys[1] and keys[0].endswith("/0")
    assert await kv_value(db, tenant_id, "sent") == 1
    async with db.connect() as conn:
        committed = select(func.count()).where(
            runs.c.action_id == action_id, runs.c.committed.is_(True)
        )
        assert (await conn.execute(committed)).scalar_one() == 1


async def _received(stand_in: StandIn, count: int) -> bool:
    return len(stand_in.received) >= count


async def _succeeded(db: AsyncEngine, action_id: int) -> bool:
    return await _status(db, action_id) == "succeeded"
