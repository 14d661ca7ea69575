"""kill -9 in the middle of a script's HTTP call: the occurrence runs again on another worker,
the receiver sees the same idempotency key twice (the call is at least once), and the run's own
effects are committed exactly once."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from http_trials import allow
from sqlalchemy.ext.asyncio import AsyncEngine
from stored import committed_runs, is_succeeded, kv_value
from support.stand_in import StandIn
from support.workers import kill_mid_call

from engine.service import EngineService

HTTP_ENV = {"CADENZA_HTTP_SCHEMES": "https,http", "CADENZA_HTTP_ALLOW_PRIVATE": "true"}


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
    await kill_mid_call(
        database_url,
        tmp_path,
        lambda: _received(stand_in, 1),
        stand_in.release,
        lambda: is_succeeded(db, action_id),
        **HTTP_ENV,
    )
    keys = [headers["Idempotency-Key"] for _, _, headers, _ in stand_in.received]
    assert len(keys) == 2 and keys[0] == keys[1] and keys[0].endswith("/0")
    assert await kv_value(db, tenant_id, "sent") == 1
    assert await committed_runs(db, action_id) == 1


async def _received(stand_in: StandIn, count: int) -> bool:
    return len(stand_in.received) >= count
