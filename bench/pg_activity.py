"""What the nodes of a multinode drain asked of PostgreSQL: statements, and time spent in locks.

Adding a node should add capacity, not contention; on a 2-core machine the rate cannot show it,
so the scenario reports the cost per action as the server sees it. The nodes log in as their
own role (`NODE_ROLE`), which tells their work from the benchmark's own queries:

- statements: `pg_stat_statements` calls of that role (the suite's cluster preloads it,
  `bench.databases.SERVER_SETTINGS`), transaction control included;
- lock waits: `pg_stat_activity` sampled every 20 ms during the drain, the share of
  the nodes' busy sessions seen waiting for a lock (a row another node holds, say) or for one
  of the server's internal locks.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass

from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine

NODE_ROLE = "node"
#: Often enough for a drain of a few seconds, rarely enough not to compete with it for the CPU.
SAMPLE_EVERY_S = 0.02


async def prepare(db: AsyncEngine) -> None:
    """The statement counter and the nodes' role (a superuser: it owns nothing, reads all)."""
    async with db.begin() as conn:
        await conn.execute(text("CREATE EXTENSION IF NOT EXISTS pg_stat_statements"))
        exists = await conn.execute(
            text("SELECT 1 FROM pg_roles WHERE rolname = :role"), {"role": NODE_ROLE}
        )
        if exists.first() is None:
            await conn.execute(text(f"CREATE ROLE {NODE_ROLE} LOGIN SUPERUSER"))


def node_url(url: str) -> str:
    """`url` logged in as the nodes' role."""
    return make_url(url).set(username=NODE_ROLE).render_as_string(hide_password=False)


async def reset_statements(db: AsyncEngine) -> None:
    async with db.begin() as conn:
        await conn.execute(text("SELECT pg_stat_statements_reset()"))


async def node_statements(db: AsyncEngine) -> int:
    """Statements the nodes ran in this database since the last reset."""
    query = text(
        "SELECT coalesce(sum(calls), 0) FROM pg_stat_statements"
        " WHERE userid = CAST(:role AS regrole)"
        " AND dbid = (SELECT oid FROM pg_database WHERE datname = current_database())"
    )
    async with db.connect() as conn:
        return int((await conn.execute(query, {"role": NODE_ROLE})).scalar_one())


@dataclass
class LockWaits:
    """Samples of the nodes' sessions that were running a statement, and of those waiting."""

    busy: int = 0
    on_locks: int = 0
    on_internal_locks: int = 0

    def share(self, waiting: int) -> float:
        return waiting / self.busy if self.busy else 0.0

    def clear(self) -> None:
        self.busy = self.on_locks = self.on_internal_locks = 0


_SAMPLE = text(
    "SELECT count(*),"
    " count(*) FILTER (WHERE wait_event_type = 'Lock'),"
    " count(*) FILTER (WHERE wait_event_type = 'LWLock')"
    " FROM pg_stat_activity"
    " WHERE usename = :role AND datname = current_database() AND state = 'active'"
)


@contextlib.asynccontextmanager
async def sampling_lock_waits(db: AsyncEngine) -> AsyncIterator[LockWaits]:
    """Sample the nodes' sessions until the block ends; the counts fill in as it runs."""
    waits = LockWaits()

    async def sample() -> None:
        async with db.connect() as conn:
            while True:
                # each sample its own transaction: the view is a snapshot per transaction
                busy, on_locks, on_internal = (
                    await conn.execute(_SAMPLE, {"role": NODE_ROLE})
                ).one()
                await conn.commit()
                waits.busy += busy
                waits.on_locks += on_locks
                waits.on_internal_locks += on_internal
                await asyncio.sleep(SAMPLE_EVERY_S)

    task = asyncio.create_task(sample())
    try:
        yield waits
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
