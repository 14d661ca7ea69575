"""multinode: 1, 2 and 3 `cadenza worker` processes on one PostgreSQL drain one burst.

Reports actions/s for each node count and the duplicates, which must be 0: committed runs
beyond one per action. (Attempts that lost their claim and committed nothing are counted too.)
The burst is 5 000 actions in full mode (100 in quick), fewer when one worker's calibration
burst shows it would need longer than `DRAIN_BUDGET_S` (noted). That budget is 5 s: every
drain also starts and warms its workers (about 12 s for three on two cores), nine drains make
this scenario about three minutes, and the faster engine still drains thousands in 5 s.
"""

from __future__ import annotations

import contextlib

from sqlalchemy.ext.asyncio import AsyncEngine

from bench import ours
from bench.budget import sized
from bench.context import Context
from bench.results import Recorder, ScenarioResult, Status
from bench.workload import TRIVIAL_PYTHON, Workload, burst

TENANTS = 30
DUPLICATES = "duplicate committed runs"
#: Seconds one worker may take to drain the burst; the other node counts drain the same size.
DRAIN_BUDGET_S = 5.0


async def _drain(
    ctx: Context, url: str, db: AsyncEngine, tenant_ids: list[str], nodes: int, workload: Workload
) -> tuple[ours.Drained, int, int]:
    """Start `nodes` workers, warm them, drain `workload`: (result, duplicates, lost claims)."""
    async with contextlib.AsyncExitStack() as stack:
        workers = [
            await stack.enter_async_context(
                ours.running_worker(url, ctx.work_dir / f"multinode-{nodes}-{n}.log")
            )
            for n in range(nodes)
        ]
        await ours.warm_up(db, workers, tenant_ids, workload.one())
        since_id = await ours.last_action_id(db)
        done = await ours.drain(db, workers, tenant_ids, workload)
        extra, lost = await ours.duplicates(db, since_id)
    return done, extra, lost


async def run(ctx: Context) -> ScenarioResult:
    url = ctx.databases.url("postgresql")
    if url is None:
        return ScenarioResult("multinode", Status.SKIPPED, notes=[ctx.databases.postgres_missing])
    target = ctx.pick(100, 5000)
    db, tenant_ids = await ours.prepare(url, TENANTS, "node")
    recorder = Recorder()
    notes: list[str] = []
    try:
        size = target
        if ctx.calibrates:
            probe = burst("python", TRIVIAL_PYTHON, 100, ctx.base_lead_s)
            calibration, _, _ = await _drain(ctx, url, db, tenant_ids, 1, probe)
            size = sized(probe.size / calibration.drain_s, target, DRAIN_BUDGET_S)
        if size < target:
            notes.append(f"{size} actions instead of {target} (one worker's calibrated rate)")
        workload = burst("python", TRIVIAL_PYTHON, size, ctx.base_lead_s)
        case = f"postgresql, {size} due at once"
        for repeat in range(ctx.light_repeats):
            for nodes in ctx.pick((1, 2), (1, 2, 3)):
                ctx.log(f"  multinode: {nodes} workers, repeat {repeat + 1}")
                system = f"{nodes} worker{'s' if nodes > 1 else ''}"
                try:
                    done, extra, lost = await _drain(ctx, url, db, tenant_ids, nodes, workload)
                except ours.WorkerFailed as exc:
                    notes.append(f"{system}, repeat {repeat + 1} not measured: {exc}")
                    continue
                recorder.add(case, system, "throughput", "actions/s", size / done.drain_s)
                recorder.add(case, system, DUPLICATES, "runs", extra)
                recorder.add(case, system, "attempts that lost their claim", "runs", lost)
                if set(done.outcomes) != {"succeeded"}:
                    notes.append(f"{system}: outcomes {done.outcomes}")
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
