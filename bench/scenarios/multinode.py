"""multinode: 1, 2 and 3 `cadenza worker` processes on one PostgreSQL drain one burst.

Reports actions/s for each node count and the duplicates, which must be 0: committed runs
beyond one per action. (Attempts that lost their claim and committed nothing are counted too.)
On two cores more nodes cannot drain faster, so it also reports what each action cost: the
statements the nodes ran, the share of their busy sessions waiting on locks
(`bench.pg_activity`) and the nodes' CPU (`bench.cpu`). Those must stay flat as nodes are added.
The burst is 5 000 actions in full mode (100 in quick), fewer when one worker's calibration
burst shows it would need longer than `DRAIN_BUDGET_S` (noted). That budget is 5 s: every
drain also starts and warms its workers (about 12 s for three on two cores), nine drains make
this scenario about three minutes, and the faster engine still drains thousands in 5 s.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncEngine

from bench import ours, pg_activity
from bench.budget import sized
from bench.compare import record_cpu
from bench.context import Context
from bench.results import Recorder, ScenarioResult, Status
from bench.workload import TRIVIAL_PYTHON, Workload, burst

TENANTS = 30
DUPLICATES = "duplicate committed runs"
#: Seconds one worker may take to drain the burst; the other node counts drain the same size.
DRAIN_BUDGET_S = 5.0


@dataclass(frozen=True)
class NodesDrained:
    """One drain by `nodes` workers, and what it cost the server."""

    done: ours.Drained
    duplicates: int
    lost_claims: int
    statements: int
    lock_waits: pg_activity.LockWaits


async def _drain(
    ctx: Context, url: str, db: AsyncEngine, tenant_ids: list[str], nodes: int, workload: Workload
) -> NodesDrained:
    """Start `nodes` workers, warm them, drain `workload` while sampling the server."""
    async with contextlib.AsyncExitStack() as stack:
        workers = [
            await stack.enter_async_context(
                ours.running_worker(
                    pg_activity.node_url(url), ctx.work_dir / f"multinode-{nodes}-{n}.log"
                )
            )
            for n in range(nodes)
        ]
        await ours.warm_up(db, workers, tenant_ids, workload.one())
        since_id = await ours.last_action_id(db)
        async with pg_activity.sampling_lock_waits(db) as lock_waits:
            done = await ours.drain(
                db, workers, tenant_ids, workload, at_due=lambda: _start_counting(db, lock_waits)
            )
        statements = await pg_activity.node_statements(db)
        extra, lost = await ours.duplicates(db, since_id)
    return NodesDrained(done, extra, lost, statements, lock_waits)


async def _start_counting(db: AsyncEngine, lock_waits: pg_activity.LockWaits) -> None:
    """Count from just before the burst is due: not the nodes' idle polls during the lead."""
    await pg_activity.reset_statements(db)
    lock_waits.clear()


def _record(recorder: Recorder, case: str, system: str, drained: NodesDrained, size: int) -> None:
    recorder.add(case, system, "throughput", "actions/s", size / drained.done.drain_s)
    recorder.add(case, system, DUPLICATES, "runs", drained.duplicates)
    recorder.add(case, system, "attempts that lost their claim", "runs", drained.lost_claims)
    recorder.add(case, system, "statements per action", "statements", drained.statements / size)
    waits = drained.lock_waits
    recorder.add(
        case, system, "busy sessions waiting on a lock", "%", 100 * waits.share(waits.on_locks)
    )
    recorder.add(
        case,
        system,
        "busy sessions waiting on an internal lock",
        "%",
        100 * waits.share(waits.on_internal_locks),
    )
    record_cpu(recorder, case, system, drained.done.cpu, size)


async def run(ctx: Context) -> ScenarioResult:
    url = ctx.databases.url("postgresql")
    if url is None:
        return ScenarioResult("multinode", Status.SKIPPED, notes=[ctx.databases.postgres_missing])
    target = ctx.pick(100, 5000)
    db, tenant_ids = await ours.prepare(url, TENANTS, "node")
    await pg_activity.prepare(db)
    recorder = Recorder()
    notes: list[str] = []
    try:
        size = target
        if ctx.calibrates:
            probe = burst("python", TRIVIAL_PYTHON, 100, ctx.base_lead_s)
            calibration = await _drain(ctx, url, db, tenant_ids, 1, probe)
            size = sized(probe.size / calibration.done.drain_s, target, DRAIN_BUDGET_S)
        if size < target:
            notes.append(f"{size} actions instead of {target} (one worker's calibrated rate)")
        workload = burst("python", TRIVIAL_PYTHON, size, ctx.base_lead_s)
        case = f"postgresql, {size} due at once"
        for repeat in range(ctx.light_repeats):
            for nodes in ctx.pick((1, 2), (1, 2, 3)):
                ctx.log(f"  multinode: {nodes} workers, repeat {repeat + 1}")
                system = f"{nodes} worker{'s' if nodes > 1 else ''}"
                try:
                    drained = await _drain(ctx, url, db, tenant_ids, nodes, workload)
                except ours.WorkerFailed as exc:
                    notes.append(f"{system}, repeat {repeat + 1} not measured: {exc}")
                    continue
                _record(recorder, case, system, drained, size)
                if set(drained.done.outcomes) != {"succeeded"}:
                    notes.append(f"{system}: outcomes {drained.done.outcomes}")
    finally:
        await db.dispose()
    figures = recorder.figures()
    duplicated = any(f.metric == DUPLICATES and max(f.repeats) > 0 for f in figures)
    if duplicated:
        notes.append("DUPLICATES FOUND: some action had more than one committed run")
    return ScenarioResult(
        "multinode",
        Status.FAILED if duplicated else Status.OK,
        params={"target_actions": target, "tenants": TENANTS, "runtime": "python"},
        notes=notes,
        figures=figures,
    )
