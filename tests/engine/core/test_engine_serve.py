"""`cadenza serve` runs the engine: the demo tenant gets its sample rule, planned and pending."""

from __future__ import annotations

from sqlalchemy import select
from support.processes import running_server

from engine.store.tables import actions, rules
from tenants.db import create_engine


async def test_serve_creates_demo_rule_with_its_first_action(database_url: str) -> None:
    with running_server(database_url) as server:
        assert server.demo_key is not None
        db = create_engine(database_url)
        try:
            async with db.connect() as conn:
                names = [n for (n,) in await conn.execute(select(rules.c.name))]
                pending = (await conn.execute(select(actions.c.status))).all()
        finally:
            await db.dispose()
    assert names == ["count every minute"]
    assert [s for (s,) in pending] == ["pending"]
