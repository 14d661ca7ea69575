"""Cadenza's side of a measurement: a real `cadenza worker` process on a prepared database.

Actions are inserted straight into the store in one transaction (as the peer's jobs are), due
at a common start instant a few seconds ahead, while the worker is already running and warm (it
ran one warm-up action per tenant first). The worker finds them itself, as it finds work
written by another node. Everything measured comes from the database the worker wrote: when
each run started (lateness = started_at - due_at) and when the last action finished (drain
time).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncEngine

from bench.cpu import CpuUse, cpu_use
from bench.processes import CADENZA, Child, start_cadenza, stop
from bench.workload import Workload
from engine.store import schema
from engine.store.actions import insert_actions
from engine.store.tables import actions, runs
from tenants.connect import open_database
from tenants.registry import create_tenant
from tenants.secret_box import new_key

#: The operator key of every node this suite run starts on PostgreSQL (which has no default
#: key file): made once per run, it seals nothing the run keeps.
OPERATOR_KEY = new_key()
TERMINAL = ("succeeded", "failed", "skipped", "expired", "cancelled")
WARMUP_TIMEOUT_S = 60.0
#: How long before a drain's first due instant its CPU starts counting: the engine reads and
#: claims a little ahead of due times.
COUNT_FROM_S = 0.2
POLL_S = 0.2

Workers = Sequence[Child]


class WorkerFailed(RuntimeError):
    """The cadenza worker exited or did not finish its actions; the message has its log tail."""


@dataclass
class Drained:
    """What the worker did with one workload."""

    lateness_ms: list[float]
    drain_s: float
    outcomes: dict[str, int]
    #: What the workers' threads and sandboxes used from just before the workload was due to
    #: its end.
    cpu: CpuUse = field(default_factory=CpuUse)


async def prepare(url: str, tenant_count: int, label: str) -> tuple[AsyncEngine, list[str]]:
    """Migrate the database and create `tenant_count` tenants; return the engine and their ids."""
    db = await open_database(url)
    await schema.upgrade(db)
    async with db.begin() as conn:
        created = [await create_tenant(conn, f"{label}-{i}") for i in range(tenant_count)]
    return db, [tenant.id for tenant, _key in created]


def one_off(
    tenant_id: str, code: str, due_at: datetime, runtime: str = "python", **extra: object
) -> dict[str, object]:
    """The row of a pending one-off action with one attempt (`extra` overrides columns), for
    loading a workload straight into the store."""
    return {
        "tenant_id": tenant_id,
        "runtime": runtime,
        "code": code,
        "params": {},
        "timeout_ms": 5000,
        "memory_mb": 128,
        "scheduled_at": due_at,
        "due_at": due_at,
        "status": "pending",
        "max_attempts": 1,
        "created_at": datetime.now(UTC),
    } | extra


def action_rows(
    tenant_ids: Sequence[str], workload: Workload, start_at: datetime
) -> list[dict[str, object]]:
    """One one-off action per offset, tenants taken round robin."""
    return [
        one_off(
            tenant_ids[index % len(tenant_ids)],
            workload.code,
            start_at + timedelta(seconds=offset_s),
            workload.runtime,
        )
        for index, offset_s in enumerate(workload.offsets_s)
    ]


async def _count_finished(db: AsyncEngine, since_id: int) -> int:
    query = select(func.count()).where(actions.c.id > since_id, actions.c.status.in_(TERMINAL))
    async with db.connect() as conn:
        return int((await conn.execute(query)).scalar_one())


async def last_action_id(db: AsyncEngine) -> int:
    async with db.connect() as conn:
        return int((await conn.execute(select(func.max(actions.c.id)))).scalar_one() or 0)


async def wait_finished(
    db: AsyncEngine, workers: Workers, since_id: int, count: int, timeout_s: float
) -> None:
    """Poll until `count` actions above `since_id` are finished; fail if a worker dies."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while (done := await _count_finished(db, since_id)) < count:
        for worker in workers:
            if (exit_note := worker.exited()) is not None:
                raise WorkerFailed(f"cadenza worker {exit_note} (after {done} actions)")
        if loop.time() > deadline:
            raise WorkerFailed(f"only {done} of {count} actions finished in {timeout_s:.0f} s")
        await asyncio.sleep(POLL_S)


async def _measure(db: AsyncEngine, since_id: int, start_at: datetime) -> Drained:
    started = select(runs.c.started_at, actions.c.due_at).join(
        actions, runs.c.action_id == actions.c.id
    )
    async with db.connect() as conn:
        pairs = (await conn.execute(started.where(actions.c.id > since_id))).all()
        last = (
            await conn.execute(
                select(func.max(actions.c.finished_at)).where(actions.c.id > since_id)
            )
        ).scalar_one()
        outcome_rows = await conn.execute(
            select(actions.c.status, func.count())
            .where(actions.c.id > since_id)
            .group_by(actions.c.status)
        )
        outcomes = {str(status): int(n) for status, n in outcome_rows}
    lateness = [(s - d).total_seconds() * 1000 for s, d in pairs]
    return Drained(lateness, (last - start_at).total_seconds(), outcomes)


@contextlib.asynccontextmanager
async def running_worker(
    url: str,
    log_path: Path,
    settings: dict[str, str] | None = None,
    command: Sequence[str] = (CADENZA,),
) -> AsyncIterator[Child]:
    """`cadenza worker --db URL` in a subprocess, its output in `log_path`, stopped on exit.
    On PostgreSQL it gets the suite's operator key (every node of a database needs the same)."""
    keyed = {"CADENZA_SECRET_KEYS": OPERATOR_KEY} if "postgresql" in url else {}
    worker = start_cadenza(["worker", "--db", url], log_path, keyed | (settings or {}), command)
    try:
        yield Child(worker, log_path)
    finally:
        stop(worker)


async def warm_up(
    db: AsyncEngine, workers: Workers, tenant_ids: Sequence[str], workload: Workload
) -> None:
    """Run one action of the workload's runtime for each tenant, so that the worker, its
    sandbox and each tenant's warm sandbox worker are ready, as in a deployment whose tenants
    have run before (otherwise a small burst measures mostly forks of first runs)."""
    since_id = await last_action_id(db)
    each = replace(workload, offsets_s=(0.0,) * len(tenant_ids), lead_s=0.0)
    async with db.begin() as conn:
        await insert_actions(conn, action_rows(tenant_ids, each, datetime.now(UTC)))
    await wait_finished(db, workers, since_id, each.size, WARMUP_TIMEOUT_S)
    done = await _measure(db, since_id, datetime.now(UTC))
    if done.outcomes != {"succeeded": each.size}:
        raise WorkerFailed(f"the {workload.runtime} warm-up action ended {done.outcomes}")


async def drain(
    db: AsyncEngine,
    workers: Workers,
    tenant_ids: Sequence[str],
    workload: Workload,
    at_due: Callable[[], Awaitable[None]] | None = None,
) -> Drained:
    """Insert the workload due `lead_s` from now, wait until every action finished, measure.
    CPU (and whatever `at_due` starts counting) runs from just before the first due instant,
    so that the workers' idle wait during the lead is not charged to the actions."""
    since_id = await last_action_id(db)
    pids = [worker.process.pid for worker in workers]
    start_at = datetime.now(UTC) + timedelta(seconds=workload.lead_s)
    async with db.begin() as conn:
        await insert_actions(conn, action_rows(tenant_ids, workload, start_at))
    if datetime.now(UTC) > start_at:
        raise WorkerFailed(f"loading {workload.size} actions took longer than {workload.lead_s} s")
    ahead_s = (start_at - datetime.now(UTC)).total_seconds() - COUNT_FROM_S
    await asyncio.sleep(max(0.0, ahead_s))
    cpu_before = cpu_use(pids)
    if at_due is not None:
        await at_due()
    timeout_s = workload.lead_s + workload.span_s + workload.size / 20 + 60
    await wait_finished(db, workers, since_id, workload.size, timeout_s)
    cpu = cpu_use(pids) - cpu_before
    return replace(await _measure(db, since_id, start_at), cpu=cpu)


async def duplicates(db: AsyncEngine, since_id: int) -> tuple[int, int]:
    """(committed runs beyond one per action, attempts that lost their claim) above `since_id`.

    The first must be 0: a committed run is one whose effects took place. The second counts
    runs whose lease was taken over (their effects were discarded); it is allowed.
    """
    mine = runs.c.action_id > since_id
    async with db.connect() as conn:
        committed = await conn.execute(
            select(func.count(), func.count(runs.c.action_id.distinct())).where(
                mine, runs.c.committed.is_(True)
            )
        )
        total, distinct = committed.one()
        lost = await conn.execute(select(func.count()).where(mine, runs.c.committed.is_(False)))
        return int(total) - int(distinct), int(lost.scalar_one())
