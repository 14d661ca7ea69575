"""A one-off whose script makes one outside call then counts it in kv, its worker killed -9
while the call is in flight: for the tests of what the retry presents again (HTTP and
capability calls). The run's own effects must be committed exactly once either way."""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy.ext.asyncio import AsyncEngine
from stored import committed_runs, is_succeeded, kv_value
from support.workers import kill_mid_call

from engine.service import EngineService


async def run_killed_mid_call(
    service: EngineService,
    db: AsyncEngine,
    tenant_id: str,
    call_line: str,
    called: Callable[[], Awaitable[bool]],
    release: threading.Event,
    database_url: str,
    log_dir: Path,
    **env: str,
) -> None:
    """Submit a script that runs `call_line` then increments `sent`, kill its first worker
    once `called`, let a second finish it; assert the run and its kv write committed once."""
    code = f"def main(ctx):\n    {call_line}\n    ctx.kv.incr('sent', 1)\n    return ctx.attempt\n"
    submitted = await service.submit_action(
        tenant_id, run_at=datetime.now(UTC), key="once", code=code
    )
    action_id = submitted.action.id

    async def finished() -> bool:
        return await is_succeeded(db, action_id)

    await kill_mid_call(database_url, log_dir, called, release, finished, **env)
    assert await kv_value(db, tenant_id, "sent") == 1
    assert await committed_runs(db, action_id) == 1
