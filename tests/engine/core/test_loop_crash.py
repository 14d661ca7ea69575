"""Crash safety with real processes: `kill -9` a worker mid-run, start another, nothing is lost,
nothing takes effect twice, and every attempt recorded is one that ran: a lost attempt is a
`crashed` run before the next attempt of the same action; a claim whose run never started
goes back uncounted."""

from __future__ import annotations

import os
import signal
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncEngine
from support.waiting import eventually
from workers import start_worker, stop

from engine.service import EngineService
from engine.store.tables import actions, runs
from tenants.tables import kv

ACTIONS = 120
#: Counts its own executions in kv (buffered: only a committed run's write lands) and spins a
#: little so that several runs are in flight when the worker is killed.
SLOW_COUNTER = """
def main(ctx):
    key = "ran:" + ctx.occurrence_id
    ctx.kv.set(key, ctx.kv.get(key, 0) + 1)
    total = 0
    for i in range(20000):
        total += i
    return total
"""


async def _count(db: AsyncEngine, query: object) -> int:
    async with db.connect() as conn:
        return int((await conn.execute(query)).scalar_one())  # type: ignore[call-overload]


async def test_kill_9_mid_run_loses_nothing_and_counts_once(
    service: EngineService, tenant_id: str, db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    now = datetime.now(UTC)  # the worker runs on the real clock
    for n in range(ACTIONS):
        await service.submit_action(tenant_id, run_at=now, key=f"a{n}", code=SLOW_COUNTER)
    ok_runs = select(func.count()).select_from(runs).where(runs.c.outcome == "ok")
    running = select(func.count()).select_from(actions).where(actions.c.status == "running")
    first = start_worker(database_url, "first", tmp_path)
    try:
        await eventually(lambda: _mid_run(db, ok_runs, running), timeout_s=60)
        os.kill(first.pid, signal.SIGKILL)
        first.wait()
    finally:
        stop(first)
    in_flight = await _count(db, running)
    assert in_flight > 0, "the worker was killed with nothing in flight; the test proved nothing"
    second = start_worker(database_url, "second", tmp_path)
    try:
        done = select(func.count()).select_from(actions).where(actions.c.status == "succeeded")
        await eventually(lambda: _at_least(db, done, ACTIONS), timeout_s=90)
    finally:
        stop(second)
    async with db.connect() as conn:
        counts = [
            v for (v,) in await conn.execute(select(kv.c.value).where(kv.c.tenant_id == tenant_id))
        ]
        committed = (
            await conn.execute(
                select(runs.c.action_id, func.count())
                .where(runs.c.committed.is_(True))
                .group_by(runs.c.action_id)
            )
        ).all()
        attempts = dict((await conn.execute(select(actions.c.id, actions.c.attempt))).all())
        recorded = (
            await conn.execute(select(runs.c.action_id, runs.c.attempt, runs.c.outcome))
        ).all()
    assert counts == [1] * ACTIONS, "every action took effect exactly once"
    assert len(committed) == ACTIONS and {n for _, n in committed} == {1}
    history = {
        action_id: sorted((attempt, outcome) for a, attempt, outcome in recorded if a == action_id)
        for action_id in attempts
    }
    for action_id, runs_of in history.items():
        # One run per counted attempt: a lost attempt is recorded, one that never started is not.
        expected = [(n, "crashed") for n in range(1, attempts[action_id])]
        assert runs_of == [*expected, (attempts[action_id], "ok")], (action_id, runs_of)


async def _at_least(db: AsyncEngine, query: object, n: int) -> bool:
    return await _count(db, query) >= n


async def _mid_run(db: AsyncEngine, ok_runs: object, running: object) -> bool:
    """A quarter of the actions done and some claimed and unfinished: the moment to kill (a
    fast worker may otherwise be between two claims, or done, when the kill lands)."""
    return await _at_least(db, ok_runs, ACTIONS // 4) and await _at_least(db, running, 1)
