"""The audit hook (`api.audit_hook`) listens to every connection's begin and rollback. A query
cancelled mid-flight (what a stop does to the engine's loops) invalidates its connection; the
hook must then let the cancellation through. It used to raise PendingRollbackError from the
rollback instead, so the loop took the cancellation for a failure, retried, and `serve` did
not exit on SIGTERM."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from api import audit_hook

#: A query that runs for a second or two on either database: it is cancelled mid-flight (a
#: SQLite query then still runs to its end in aiosqlite's thread, so it must not be endless).
SLOW = {
    "sqlite": "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) "
    "SELECT count(*) FROM (SELECT i FROM n LIMIT 3000000)",
    "postgresql": "SELECT pg_sleep(2)",
}


async def _slow_query(db: AsyncEngine, started: asyncio.Event) -> None:
    async with db.connect() as conn:
        started.set()
        await conn.execute(text(SLOW[db.dialect.name]))


async def test_a_cancelled_query_ends_cancelled_not_in_a_rollback_error(db: AsyncEngine) -> None:
    audit_hook.install(db)
    started = asyncio.Event()
    task = asyncio.create_task(_slow_query(db, started))
    await started.wait()  # the task now waits on the database, inside its query
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    async with db.connect() as conn:  # the pool still serves a working connection
        assert (await conn.execute(text("SELECT 1"))).scalar_one() == 1
