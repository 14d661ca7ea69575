"""`cadenza serve` runs the engine: the demo tenant gets its sample rule, paused (so its events
do not fill a newcomer's feed) and planned the moment it is resumed."""

from __future__ import annotations

import httpx
from sqlalchemy import select
from support.processes import running_server

from engine.store.tables import actions
from tenants.db import create_engine


async def test_serve_creates_the_demo_rule_paused_and_resuming_plans_it(database_url: str) -> None:
    with running_server(database_url) as server:
        assert server.demo_key is not None
        headers = {"Authorization": f"Bearer {server.demo_key}"}
        with httpx.Client(base_url=server.base_url, headers=headers, timeout=30) as api:
            (rule,) = api.get("/v1/rules").json()["items"]
            assert (rule["name"], rule["enabled"], rule["next_run_at"]) == (
                "count every minute",
                False,
                None,
            )
            db = create_engine(database_url)
            try:
                async with db.connect() as conn:
                    before = (await conn.execute(select(actions.c.status))).all()
                resumed = api.post(f"/v1/rules/{rule['id']}/resume").json()
                async with db.connect() as conn:
                    after = [s for (s,) in await conn.execute(select(actions.c.status))]
            finally:
                await db.dispose()
    assert before == []
    assert resumed["enabled"] and resumed["next_run_at"] is not None
    assert "pending" in after
