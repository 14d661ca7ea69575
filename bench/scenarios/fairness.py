"""fairness: one tenant saturates the node, another's work must still run on time.

Tenant A has 20 scripts due every 5 s that each wait 4.5 s (timeout 5 s), more than the node
has slots; tenant B has a one-off due every 250 ms and a rule every second. Reported for B:
lateness p50/p99/max of its runs, and its occurrences not run (misfire, overlap, grace).
The target (issue 17): p99 <= 50 ms and none not run.

Cadenza runs as a `cadenza worker` on SQLite with its default run slots (one per CPU: before
they were shared fairly, A filled them all), and with four per CPU (what an operator whose
scripts mostly wait would set). The baseline is APScheduler with the same jobs in its default
pool of 10 threads, first come first served: A's waiting jobs hold its threads and B's jobs
queue behind them. Quick mode runs
6 s of load once, full mode 20 s, twice.
"""

from __future__ import annotations

import asyncio
import math
import os
from datetime import UTC, datetime, timedelta

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncEngine

from bench import ours, peer
from bench.context import Context
from bench.results import Recorder, ScenarioResult, Status
from bench.stats import lateness_summary
from bench.workload import TRIVIAL_PYTHON, burst
from engine.store.actions import insert_actions
from engine.store.tables import actions, rules, runs

A_SCRIPTS = 20
A_PERIOD_S = 5.0
A_WAIT_S = 4.5
NEAR_TIMEOUT = f"import time\ndef main(ctx):\n    time.sleep({A_WAIT_S})\n"
B_RATE_PER_S = 4
NOT_RUN = ("misfire", "overlap", "grace")
CASE = "A: 20 scripts of 4.5 s every 5 s; B: 4 one-offs/s + a rule every 1 s"


def _every_second(
    tenant_id: str, start: datetime, end: datetime, now: datetime
) -> tuple[dict[str, object], dict[str, object]]:
    """B's rule every second in [start, end], and its first occurrence, as the engine plans."""
    rule_id = f"r_fair{int(now.timestamp() * 1000)}"
    rule = {
        "id": rule_id,
        "tenant_id": tenant_id,
        "name": "every second",
        "schedule": "every 1s",
        "runtime": "python",
        "code": TRIVIAL_PYTHON,
        "params": {},
        "start_at": start,
        "end_at": end,
        "created_at": now,
        "updated_at": now,
    }
    first = {
        "tenant_id": tenant_id,
        "rule_id": rule_id,
        "rule_version": 1,
        "scheduled_at": start,
        "due_at": start,
        "status": "pending",
        "max_attempts": 3,
        "created_at": now,
    }
    return rule, first


async def _load(db: AsyncEngine, a: str, b: str, start: datetime, duration_s: float) -> None:
    now = datetime.now(UTC)
    waves = math.ceil(duration_s / A_PERIOD_S)
    rows = [
        ours.one_off(a, NEAR_TIMEOUT, start + timedelta(seconds=w * A_PERIOD_S))
        for w in range(waves)
        for _ in range(A_SCRIPTS)
    ]
    rows += [
        ours.one_off(b, TRIVIAL_PYTHON, start + timedelta(seconds=n / B_RATE_PER_S))
        for n in range(int(duration_s * B_RATE_PER_S))
    ]
    rule, first = _every_second(b, start, start + timedelta(seconds=duration_s), now)
    async with db.begin() as conn:
        await conn.execute(rules.insert(), [rule])
        await insert_actions(conn, [first])  # its columns differ from the one-offs'
        await insert_actions(conn, rows)


async def _b_settled(db: AsyncEngine, b: str) -> bool:
    query = select(func.count()).where(
        actions.c.tenant_id == b, actions.c.status.in_(("pending", "running"))
    )
    async with db.connect() as conn:
        return int((await conn.execute(query)).scalar_one()) == 0


async def _b_figures(db: AsyncEngine, b: str, since_id: int) -> tuple[list[float], int]:
    """B's lateness in ms (every run of the load) and its occurrences not run."""
    started = select(runs.c.lateness_ms).where(runs.c.tenant_id == b, runs.c.action_id > since_id)
    not_run = select(func.count()).where(
        actions.c.tenant_id == b, actions.c.id > since_id, actions.c.reason.in_(NOT_RUN)
    )
    async with db.connect() as conn:
        lateness = [float(v) for (v,) in await conn.execute(started)]
        return lateness, int((await conn.execute(not_run)).scalar_one())


async def _measure_ours(
    ctx: Context, label: str, settings: dict[str, str], duration_s: float, rec: Recorder
) -> None:
    url = ctx.databases.url("sqlite")
    assert url is not None
    db, (a, b) = await ours.prepare(url, 2, "fair")
    try:
        async with ours.running_worker(
            url, ctx.work_dir / f"fairness-{len(rec.figures())}.log", settings
        ) as worker:
            await ours.warm_up(db, [worker], [a, b], burst("python", TRIVIAL_PYTHON, 1))
            since_id = await ours.last_action_id(db)
            start = datetime.now(UTC) + timedelta(seconds=ctx.base_lead_s)
            await _load(db, a, b, start, duration_s)
            deadline = asyncio.get_running_loop().time() + duration_s + 120
            while not await _b_settled(db, b):
                if asyncio.get_running_loop().time() > deadline or worker.exited():
                    raise ours.WorkerFailed(f"B's work did not settle: {worker.exited()}")
                await asyncio.sleep(ours.POLL_S)
        lateness, not_run = await _b_figures(db, b, since_id)
    finally:
        await db.dispose()
    _record(rec, label, lateness)
    rec.add(CASE, label, "B not run", "occurrences", not_run)


def _record(rec: Recorder, system: str, lateness_ms: list[float]) -> None:
    summary = lateness_summary(lateness_ms)
    for name in ("p50_ms", "p99_ms", "max_ms"):
        rec.add(CASE, system, f"B lateness {name[:-3]}", "ms", summary[name])
    rec.add_samples(CASE, system, "lateness_ms", lateness_ms)


async def _measure_peer(ctx: Context, duration_s: float, rec: Recorder) -> None:
    url = ctx.databases.url("sqlite")
    assert url is not None
    offsets = [n / B_RATE_PER_S for n in range(int(duration_s * B_RATE_PER_S))]
    waves = math.ceil(duration_s / A_PERIOD_S)
    busy = [(w * A_PERIOD_S, A_WAIT_S) for w in range(waves) for _ in range(A_SCRIPTS)]
    lateness = await asyncio.to_thread(
        peer.fire_all, url, peer.Peer.TUNED, offsets, ctx.base_lead_s, busy
    )
    _record(rec, str(peer.Peer.TUNED), lateness)


async def run(ctx: Context) -> ScenarioResult:
    duration_s = ctx.pick(6.0, 20.0)
    cpus = os.cpu_count() or 2
    systems = {
        f"{peer.OURS} (default: {cpus} slots, one per CPU)": {},
        f"{peer.OURS} ({4 * cpus} slots)": {"CADENZA_MAX_CONCURRENCY": str(4 * cpus)},
    }
    rec = Recorder()
    for repeat in range(ctx.pick(1, 2)):
        for label, settings in systems.items():
            ctx.log(f"  {label}, repeat {repeat + 1}")
            await _measure_ours(ctx, label, settings, duration_s, rec)
        ctx.log(f"  {peer.Peer.TUNED}, repeat {repeat + 1}")
        await _measure_peer(ctx, duration_s, rec)
    return ScenarioResult(
        "fairness",
        Status.OK if rec.figures() else Status.FAILED,
        params={"duration_s": duration_s, "a_scripts": A_SCRIPTS, "b_rate_per_s": B_RATE_PER_S},
        notes=[
            "target for B: lateness p99 <= 50 ms and 0 not run (misfire, overlap, grace)",
            "the baseline runs B's rule as one-offs only (its lateness), Cadenza runs both",
        ],
        figures=rec.figures(),
        ratios=[r for label in systems for r in rec.ratios(label, str(peer.Peer.TUNED))],
        samples=rec.samples,
    )
