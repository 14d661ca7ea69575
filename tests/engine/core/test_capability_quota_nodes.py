"""The per-tenant minute quota of capability calls holds over two real engine nodes on one
PostgreSQL: both compete for one tenant's flood of actions (`--no-tenant-leases`), each run
calling the stand-in product several times, and the product receives no more calls in a minute
than the quota, where counting on each node would let through the quota per node."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from capability_trials import grant
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncEngine
from support.host_product import SIGNING_KEY, HostProduct
from support.postgres import PostgresCluster
from support.waiting import eventually
from workers import workers

from engine.config import EngineConfig
from engine.service import EngineService
from engine.store.call_minutes import epoch_minute
from engine.store.tables import actions, engine_nodes, runs
from sandbox import Sandbox
from tenants.db import create_engine
from tenants.registry import create_tenant

QUOTA = 6
#: More than a competing node's claim window (`engine.loop.tenant_state`) at 4 slots.
ACTIONS = 48
#: Seconds between the first submission and the flood's due instant: 48 submissions one by one
#: took over 6 s on a CI run with four test workers on two cores.
LEAD_S = 15
NODES = ["q1", "q2"]
#: Each run calls the product three times and returns how many calls were answered.
FLOOD = """
def main(ctx):
    answered, refused = 0, []
    for _ in range(3):
        try:
            ctx.call("crm.open_carts", {})
            answered += 1
        except HostError as exc:
            refused.append(str(exc))
    return {"answered": answered, "refused": refused}
"""


@pytest.mark.postgres
async def test_two_nodes_share_one_minute_quota_under_a_flood(
    pg_cluster: PostgresCluster, sandbox: Sandbox, tmp_path: Path, host_product: HostProduct
) -> None:
    url = pg_cluster.url(pg_cluster.create_database(template="cadenza_template"))
    registry = tmp_path / "capabilities.json"
    registry.write_text(json.dumps(host_product.registry()))
    env = {
        "CADENZA_CAPABILITIES_FILE": str(registry),
        "CADENZA_CAPABILITY_SIGNING_KEY": SIGNING_KEY,
        "CADENZA_CAPABILITY_MAX_CALLS_PER_MINUTE": str(QUOTA),
        "CADENZA_MAX_CONCURRENCY": "4",
    }
    db = create_engine(url)
    try:
        async with db.begin() as conn:
            tenant, _ = await create_tenant(conn, "flooder")
        await grant(db, tenant.id, "crm.open_carts")
        with workers(url, tmp_path, NODES, "--no-tenant-leases", **env):
            await eventually(lambda: _all_alive(db), timeout_s=60)
            service = EngineService(db, sandbox, EngineConfig())
            # all due at one instant both nodes have read ahead of, more than one node's claim
            # window holds: whichever claims first, the other claims the rest
            due = datetime.now(UTC) + timedelta(seconds=LEAD_S)
            for n in range(ACTIONS):
                await service.submit_action(tenant.id, run_at=due, key=f"f{n}", code=FLOOD)
            assert datetime.now(UTC) < due, f"submitting the flood took over {LEAD_S} s"
            await eventually(lambda: _all_succeeded(db), timeout_s=180)
        found = await _runs(db)
    finally:
        await db.dispose()
    nodes, results, spanned_minutes = found
    assert nodes == set(NODES), f"the flood was not shared: only {nodes} ran it"
    answered = sum(r["answered"] for r in results)
    assert answered == len(host_product.received)
    assert QUOTA <= answered <= QUOTA * spanned_minutes
    refusals = [text for r in results for text in r["refused"]]
    assert len(refusals) == 3 * ACTIONS - answered
    assert all("its quota over all engine nodes" in text for text in refusals)


async def _all_alive(db: AsyncEngine) -> bool:
    async with db.connect() as conn:
        names = {n for (n,) in await conn.execute(select(engine_nodes.c.name))}
    return names >= set(NODES)


async def _all_succeeded(db: AsyncEngine) -> bool:
    query = select(func.count()).select_from(actions).where(actions.c.status == "succeeded")
    async with db.connect() as conn:
        return int((await conn.execute(query)).scalar_one()) == ACTIONS


async def _runs(db: AsyncEngine) -> tuple[set[str], list[dict[str, Any]], int]:
    """The nodes that ran, each committed run's result, and the minutes the runs spanned."""
    query = select(runs.c.node, runs.c.result, runs.c.started_at, runs.c.finished_at).where(
        runs.c.committed.is_(True)
    )
    async with db.connect() as conn:
        rows = (await conn.execute(query)).all()
    first = min(epoch_minute(r.started_at) for r in rows)
    last = max(epoch_minute(r.finished_at) for r in rows)
    return {r.node for r in rows}, [r.result for r in rows], last - first + 1
