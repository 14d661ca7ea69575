"""The engine's hot statements use the index they were written for on SQLite, whose planner
(without statistics) can pick a worse one: claims, holds and finishes look each action up by
primary key (with the index on status, SQLite 3.40 read every pending action per claim), and
a page of a tenant's actions newest first reads just that page (not every action of the
tenant, sorted)."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncEngine
from support.moments import START

from engine.clock import ManualClock
from engine.config import EngineConfig
from engine.domain.records import ActionStatus
from engine.service import EngineService
from engine.store import actions as action_store
from engine.store import loop_statements as queue
from sandbox import Sandbox
from tenants.db import create_engine
from tenants.registry import create_tenant
from tenants.sqlite_driver import _OneCrossingConnection

BACKLOG = 30


@dataclass
class Planned:
    """A SQLite database whose statements on `actions` are explained as they run."""

    db: AsyncEngine
    tenant_id: str
    #: Statement (its first words after the verb) -> the steps of its query plan.
    plans: dict[str, list[str]] = field(default_factory=dict)

    def watch(self, prefix: str, monkeypatch: pytest.MonkeyPatch) -> None:
        """Explain the statements starting with `prefix`, whether they run through SQLAlchemy
        or past it (the loop's lean statements, `tenants.lean_statements`)."""

        @event.listens_for(self.db.sync_engine, "before_cursor_execute")
        def explain(_conn: Any, cursor: Any, statement: str, params: Any, *_: Any) -> None:
            if statement.startswith(prefix):
                cursor.execute("EXPLAIN QUERY PLAN " + statement, params)
                self.plans[_key(statement)] = [row[3] for row in cursor.fetchall()]

        lean = _OneCrossingConnection.fetch_all

        async def explained(conn: Any, statement: str, params: Any) -> Any:
            if statement.startswith(prefix):
                plan = await lean(conn, "EXPLAIN QUERY PLAN " + statement, params)
                self.plans[_key(statement)] = [row[3] for row in plan]
            return await lean(conn, statement, params)

        monkeypatch.setattr(_OneCrossingConnection, "fetch_all", explained)


def _key(statement: str) -> str:
    """A statement's name in `Planned.plans`: its table's end and its condition's start."""
    return statement.split("WHERE")[0][-40:] + statement.split("WHERE")[-1][:60]


@pytest_asyncio.fixture(loop_scope="module")
async def planned(
    sqlite_template: Path, tmp_path: Path, sandbox: Sandbox
) -> AsyncIterator[Planned]:
    path = tmp_path / "cadenza.db"
    shutil.copy(sqlite_template, path)
    db = create_engine(f"sqlite+aiosqlite:///{path}")
    try:
        async with db.begin() as conn:
            tenant, _ = await create_tenant(conn, "acme")
        service = EngineService(db, sandbox, EngineConfig(node_name="n1"), ManualClock(START))
        for _ in range(BACKLOG):
            await service.submit_action(tenant.id, run_at=START, code="def main(ctx): pass")
        yield Planned(db, tenant.id)
    finally:
        await db.dispose()


async def test_claim_hold_and_finish_use_the_primary_key(
    planned: Planned, monkeypatch: pytest.MonkeyPatch
) -> None:
    planned.watch("UPDATE actions", monkeypatch)
    async with planned.db.begin() as conn:
        rows = await queue.fetch_due(conn, planned.tenant_id, START, BACKLOG, ())
        won = await queue.claim(conn, rows[:10], "n1", START, START)
        held = await queue.hold(conn, won)
        skipped = await queue.finish_pending(conn, rows[10:], ActionStatus.SKIPPED, None, START)

    assert len(won) == 10 and held == set(won) and len(skipped) == BACKLOG - 10
    assert len(planned.plans) == 3, planned.plans
    for statement, plan in planned.plans.items():
        searches = [step for step in plan if step.startswith("SEARCH actions")]
        assert searches == ["SEARCH actions USING INTEGER PRIMARY KEY (rowid=?)"], statement


async def test_a_page_of_a_tenants_actions_is_read_in_id_order(
    planned: Planned, monkeypatch: pytest.MonkeyPatch
) -> None:
    planned.watch("SELECT actions.id", monkeypatch)
    async with planned.db.connect() as conn:
        first = await action_store.list_actions(
            conn, planned.tenant_id, status=None, rule_id=None, before_id=None, limit=10
        )
        second = await action_store.list_actions(
            conn, planned.tenant_id, status=None, rule_id=None, before_id=first[-1]["id"], limit=10
        )

    ids = [r["id"] for r in first + second]
    assert ids == sorted(ids, reverse=True) and len(set(ids)) == 20
    assert len(planned.plans) == 2, planned.plans
    for statement, plan in planned.plans.items():
        assert plan and all("ix_actions_tenant_id_id" in step for step in plan), (statement, plan)
