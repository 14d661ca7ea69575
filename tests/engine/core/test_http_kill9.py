"""kill -9 in the middle of a script's HTTP call: the occurrence runs again on another worker,
the receiver sees the same idempotency key twice (the call is at least once), and the run's own
effects are committed exactly once."""

from __future__ import annotations

from pathlib import Path

from http_trials import allow
from killed_mid_call import run_killed_mid_call
from sqlalchemy.ext.asyncio import AsyncEngine
from support.stand_in import StandIn

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
    await run_killed_mid_call(
        service,
        db,
        tenant_id,
        f"ctx.http.request('POST', '{stand_in.origin}/hold', None, 'order 42')",
        lambda: _received(stand_in, 1),
        stand_in.release,
        database_url,
        tmp_path,
        **HTTP_ENV,
    )
    keys = [headers["Idempotency-Key"] for _, _, headers, _ in stand_in.received]
    assert len(keys) == 2 and keys[0] == keys[1] and keys[0].endswith("/0")


async def _received(stand_in: StandIn, count: int) -> bool:
    return len(stand_in.received) >= count
