"""The database goes away under load and comes back, with a real `cadenza worker`: PostgreSQL
stopped and started again, and SQLite's write lock held by another process past the busy
timeout. The engine waits (backing off), resumes by itself, and in the end every action ran
and took effect exactly once: 0 lost, 0 doubled."""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncEngine
from stored import kv_value
from support.postgres import PostgresCluster, find_bin_dir
from support.processes import run_cli
from support.waiting import eventually
from workers import start_worker, stop

from bench.ours import one_off
from engine.store.actions import insert_actions
from engine.store.tables import actions, runs
from tenants.db import SQLITE_BUSY_TIMEOUT_MS, create_engine
from tenants.registry import create_tenant

ACTIONS = 60
RATE_PER_S = 4
SCRIPT = "def main(ctx):\n    ctx.kv.incr('done', 1)\n    ctx.emit('done', {})\n"
#: How long the database stays away: longer than SQLite's busy timeout and than a run's
#: time limit, shorter than the actions' grace.
OUTAGE_S = SQLITE_BUSY_TIMEOUT_MS / 1000 + 2


async def _load(db: AsyncEngine) -> str:
    """`ACTIONS` one-offs of one tenant at `RATE_PER_S`, the first due in 2 s."""
    now = datetime.now(UTC)
    async with db.begin() as conn:
        tenant, _ = await create_tenant(conn, "acme")
        rows = [
            one_off(tenant.id, SCRIPT, now + timedelta(seconds=2 + n / RATE_PER_S))
            for n in range(ACTIONS)
        ]
        await insert_actions(conn, rows)
    return tenant.id


async def _succeeded(db: AsyncEngine) -> int:
    query = select(func.count()).where(actions.c.status == "succeeded")
    async with db.connect() as conn:
        return int((await conn.execute(query)).scalar_one())


async def _through_an_outage(
    db: AsyncEngine, url: str, tmp_path: Path, outage: Callable[[], Awaitable[None]]
) -> None:
    tenant_id = await _load(db)
    worker = start_worker(url, "n1", tmp_path)
    try:
        await eventually(lambda: _at_least(db, 10), timeout_s=60)
        await outage()
        await eventually(lambda: _at_least(db, ACTIONS), timeout_s=120)
        assert worker.poll() is None, "the worker went on through the outage"
    finally:
        stop(worker)
    assert await kv_value(db, tenant_id, "done") == ACTIONS
    committed = select(runs.c.action_id, func.count()).where(runs.c.committed.is_(True))
    async with db.connect() as conn:
        per_action = (await conn.execute(committed.group_by(runs.c.action_id))).all()
        statuses = (await conn.execute(select(actions.c.status).distinct())).scalars().all()
    assert len(per_action) == ACTIONS and {n for _, n in per_action} == {1}, "0 lost, 0 doubled"
    assert statuses == ["succeeded"]


async def _at_least(db: AsyncEngine, n: int) -> bool:
    return await _succeeded(db) >= n


@pytest.fixture
def own_cluster() -> AsyncIterator[PostgresCluster]:
    """A PostgreSQL of this test's own, to stop and start without disturbing the others."""
    bin_dir = find_bin_dir()
    assert bin_dir is not None, "PostgreSQL server binaries (initdb, pg_ctl) not found"
    cluster = PostgresCluster(bin_dir)
    cluster.start()
    try:
        yield cluster  # type: ignore[misc]
    finally:
        cluster.stop()


@pytest.mark.postgres
async def test_postgresql_stopped_under_load_and_started_again(
    own_cluster: PostgresCluster, tmp_path: Path
) -> None:
    own_cluster.sql("CREATE DATABASE cadenza")
    url = own_cluster.url("cadenza")
    assert run_cli("db", "upgrade", "--db", url).returncode == 0
    db = create_engine(url)

    async def outage() -> None:
        await asyncio.to_thread(own_cluster.stop_server)
        await asyncio.sleep(OUTAGE_S)  # the outage itself
        await asyncio.to_thread(own_cluster.start_server)

    try:
        await _through_an_outage(db, url, tmp_path, outage)
    finally:
        await db.dispose()


async def test_sqlite_write_lock_held_past_the_busy_timeout(
    sqlite_template: Path, tmp_path: Path
) -> None:
    path = tmp_path / "cadenza.db"
    shutil.copy(sqlite_template, path)
    url = f"sqlite+aiosqlite:///{path}"
    db = create_engine(url)

    async def outage() -> None:
        holder = sqlite3.connect(path, timeout=30)
        holder.execute("BEGIN IMMEDIATE")  # as another process's long writer would
        try:
            await asyncio.sleep(OUTAGE_S)  # the outage itself
        finally:
            holder.rollback()
            holder.close()

    try:
        await _through_an_outage(db, url, tmp_path, outage)
    finally:
        await db.dispose()
