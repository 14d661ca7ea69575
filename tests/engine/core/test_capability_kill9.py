"""kill -9 in the middle of a capability call: the occurrence runs again on another worker, the
product receives the call twice under one idempotency key (the call is at least once) and
performs its effect once; the run's own effects are committed exactly once."""

from __future__ import annotations

import json
from pathlib import Path

from capability_trials import grant
from killed_mid_call import run_killed_mid_call
from sqlalchemy.ext.asyncio import AsyncEngine
from support.host_product import SIGNING_KEY, HostProduct

from engine.service import EngineService


def _env(registry: Path) -> dict[str, str]:
    return {
        "CADENZA_CAPABILITIES_FILE": str(registry),
        "CADENZA_CAPABILITY_SIGNING_KEY": SIGNING_KEY,
    }


async def test_kill_9_mid_call_repeats_the_call_with_its_key_and_commits_once(
    service: EngineService,
    tenant_id: str,
    db: AsyncEngine,
    database_url: str,
    tmp_path: Path,
    host_product: HostProduct,
) -> None:
    registry = tmp_path / "capabilities.json"
    registry.write_text(json.dumps(host_product.registry()))
    await grant(db, tenant_id, "test.hold")
    await run_killed_mid_call(
        service,
        db,
        tenant_id,
        "ctx.call('test.hold', {'order': 42})",
        lambda: _received(host_product, 1),
        host_product.release,
        database_url,
        tmp_path,
        **_env(registry),
    )
    keys = [headers["Idempotency-Key"] for headers, _ in host_product.received]
    assert len(keys) == 2 and keys[0] == keys[1] and keys[0].endswith("/call/0")
    first_call, repeated = host_product.calls()
    assert repeated.pop("attempt") >= first_call.pop("attempt") == 1
    assert repeated == first_call and first_call["args"] == {"order": 42}


async def _received(product: HostProduct, count: int) -> bool:
    return len(product.received) >= count
