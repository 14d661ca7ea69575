"""throughput: N one-shot actions due at the same instant; actions/s until the last finished.

Cadenza runs each runtime's trivial script in its sandbox; the peer runs a no-op function
with no sandbox at all. Drain time runs from the common due instant to the last finish.
"""

from __future__ import annotations

from bench.compare import Case, side_by_side
from bench.context import Context
from bench.peer import OURS, Peer
from bench.results import Recorder, ScenarioResult, Status
from bench.workload import burst

RUNTIMES = ("python", "micropython", "wasm")


def _record(
    recorder: Recorder, case: str, system: str, lateness_ms: list[float], drain_s: float, size: int
) -> None:
    recorder.add(case, system, "throughput", "actions/s", size / drain_s)
    recorder.add(case, system, "drain", "s", drain_s)


async def run(ctx: Context) -> ScenarioResult:
    size = ctx.pick(500, 10_000)
    databases = ctx.pick(("sqlite",), ("sqlite", "postgresql"))
    runtimes = ctx.pick(("python",), RUNTIMES)
    tenant_count = 10
    shape = burst("python", "", size, ctx.base_lead_s)
    recorder = Recorder()
    notes: list[str] = []
    for database in databases:
        case = Case(f"{database}, {size} due at once", shape.offsets_s, shape.lead_s)
        notes += await side_by_side(
            ctx, database, [case], runtimes, recorder, _record, tenant_count
        )
    ratios = []
    for runtime in runtimes:
        for peer in Peer:
            ratios += [
                r for r in recorder.ratios(f"{OURS} ({runtime})", peer) if r.metric == "throughput"
            ]
    return ScenarioResult(
        "throughput",
        Status.PARTIAL if notes else Status.OK,
        params={
            "actions": size,
            "tenants": tenant_count,
            "databases": list(databases),
            "runtimes": list(runtimes),
        },
        notes=notes,
        figures=recorder.figures(),
        ratios=ratios,
    )
