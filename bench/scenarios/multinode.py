"""multinode: 1, 2 and 3 `cadenza worker` processes on one PostgreSQL drain one burst.

Reports actions/s for each node count and the duplicates, which must be 0: committed runs
beyond one per action. (Attempts that lost their claim and committed nothing are counted too.)
"""

from __future__ import annotations

import contextlib

from bench import ours
from bench.context import Context
from bench.results import Recorder, ScenarioResult, Status
from bench.workload import TRIVIAL_PYTHON, Workload, burst

TENANTS = 30


async def _measure(ctx: Context, nodes: int, workload: Workload, rec: Recorder) -> str | None:
    url = ctx.databases.url("postgresql")
    if url is None:
        return f"postgresql: {ctx.databases.postgres_missing}"
    db, tenant_ids = await ours.prepare(url, TENANTS, "node")
    case = f"postgresql, {workload.size} due at once"
    try:
        async with contextlib.AsyncExitStack() as stack:
            workers = [
                await stack.enter_async_context(
                    ours.running_worker(url, ctx.work_dir / f"multinode-{nodes}-{n}.log")
                )
                for n in range(nodes)
            ]
            for tenant_id in tenant_ids[:nodes]:
                await ours.warm_up(db, workers, tenant_id, workload)
            since_id = await ours.last_action_id(db)
            done = await ours.drain(db, workers, tenant_ids, workload)
            extra, lost = await ours.duplicates(db, since_id)
    finally:
        await db.dispose()
    system = f"{nodes} worker{'s' if nodes > 1 else ''}"
    rec.add(case, system, "throughput", "actions/s", workload.size / done.drain_s)
    rec.add(case, system, "duplicate committed runs", "runs", extra)
    rec.add(case, system, "attempts that lost their claim", "runs", lost)
    if set(done.outcomes) != {"succeeded"}:
        return f"{system}: outcomes {done.outcomes}"
    return None


async def run(ctx: Context) -> ScenarioResult:
    size = ctx.pick(300, 5000)
    workload = burst("python", TRIVIAL_PYTHON, size, ctx.base_lead_s)
    recorder = Recorder()
    notes: list[str] = []
    for repeat in range(ctx.light_repeats):
        for nodes in (1, 2, 3):
            ctx.log(f"  multinode: {nodes} workers, repeat {repeat + 1}")
            problem = await _measure(ctx, nodes, workload, recorder)
            if problem is not None:
                notes.append(problem)
                if not recorder.figures():
                    return ScenarioResult("multinode", Status.SKIPPED, notes=notes)
    duplicated = any(
        f.metric == "duplicate committed runs" and max(f.repeats) > 0 for f in recorder.figures()
    )
    if duplicated:
        notes.append("DUPLICATES FOUND: some action had more than one committed run")
    return ScenarioResult(
        "multinode",
        Status.FAILED if duplicated else Status.PARTIAL if notes else Status.OK,
        params={"actions": size, "tenants": TENANTS, "runtime": "python", "database": "postgresql"},
        notes=notes,
        figures=recorder.figures(),
    )
