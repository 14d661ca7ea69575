"""throughput: N one-shot actions due at the same instant; actions/s until the last finished.

Cadenza runs each runtime's trivial script in its sandbox; the peer runs a no-op function
with no sandbox at all. Drain time runs from the common due instant to the last finish.
N is 10 000 in full mode (100 in quick), lowered when the calibration burst shows the slowest
runtime would need longer than the mode's time box to drain it (the notes say so).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

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


def sized(capacity_per_s: float, target: int, drain_budget_s: float) -> int:
    """`target`, or fewer (a multiple of 100, at least 100) if it would outlast the budget."""
    if math.isinf(capacity_per_s):
        return target
    affordable = int(capacity_per_s * drain_budget_s) // 100 * 100
    return max(100, min(target, affordable))


async def run(ctx: Context) -> ScenarioResult:
    target = ctx.pick(100, 10_000)
    drain_budget_s = 6.0
    databases = ctx.pick(("sqlite",), ("sqlite", "postgresql"))
    runtimes = ctx.pick(("python",), RUNTIMES)
    recorder = Recorder()
    notes: list[str] = []
    for database in databases:

        def cases(capacity: float, database: str = database) -> Sequence[Case]:
            size = sized(capacity, target, drain_budget_s)
            if size < target:
                notes.append(f"{database}: {size} actions instead of {target} (calibrated rate)")
            shape = burst("python", "", size, ctx.base_lead_s)
            return [Case(f"{database}, {size} due at once", shape.offsets_s, shape.lead_s)]

        notes.extend(await side_by_side(ctx, database, cases, runtimes, recorder, _record, 10))
    ratios = [
        ratio
        for runtime in runtimes
        for peer in Peer
        for ratio in recorder.ratios(f"{OURS} ({runtime})", peer)
        if ratio.metric == "throughput"
    ]
    return ScenarioResult(
        "throughput",
        Status.OK if recorder.figures() else Status.FAILED,
        params={"target_actions": target, "tenants": 10, "runtimes": list(runtimes)},
        notes=notes,
        figures=recorder.figures(),
        ratios=ratios,
    )
