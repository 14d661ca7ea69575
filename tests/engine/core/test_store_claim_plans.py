"""On SQLite, claiming, holding and finishing actions look each one up by primary key: with
an index on status, SQLite 3.40 would otherwise read every pending (or running) action per
claim, which made a claim cost grow with the backlog."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from sqlalchemy import event
from support.moments import START

from engine.clock import ManualClock
from engine.config import EngineConfig
from engine.service import EngineService
from engine.store import queue
from sandbox import Sandbox
from tenants.db import create_engine
from tenants.registry import create_tenant

BACKLOG = 30


async def test_claim_hold_and_finish_use_the_primary_key(
    sqlite_template: Path, tmp_path: Path, sandbox: Sandbox
) -> None:
    path = tmp_path / "cadenza.db"
    shutil.copy(sqlite_template, path)
    db = create_engine(f"sqlite+aiosqlite:///{path}")
    plans: dict[str, list[str]] = {}

    @event.listens_for(db.sync_engine, "before_cursor_execute")
    def explain(_conn: Any, cursor: Any, statement: str, params: Any, *_: Any) -> None:
        if statement.startswith("UPDATE actions") and " IN " in statement:
            cursor.execute("EXPLAIN QUERY PLAN " + statement, params)
            plans[statement.split(" SET ")[1][:30]] = [row[3] for row in cursor.fetchall()]

    try:
        async with db.begin() as conn:
            tenant, _ = await create_tenant(conn, "acme")
        config = EngineConfig(node_name="n1")
        service = EngineService(db, sandbox, config, ManualClock(START))
        for _ in range(BACKLOG):
            await service.submit_action(tenant.id, run_at=START, code="def main(ctx): pass")
        async with db.begin() as conn:
            rows = await queue.fetch_due(conn, tenant.id, START, BACKLOG, ())
            won = await queue.claim(conn, rows[:10], "n1", START)
            held = await queue.hold(conn, won)
            skipped = await queue.finish_pending(conn, rows[10:], "skipped", None, START)
    finally:
        await db.dispose()

    assert len(won) == 10 and held == set(won) and len(skipped) == BACKLOG - 10
    assert len(plans) == 3, plans
    for statement, plan in plans.items():
        searches = [step for step in plan if step.startswith("SEARCH actions")]
        assert searches == ["SEARCH actions USING INTEGER PRIMARY KEY (rowid=?)"], statement
