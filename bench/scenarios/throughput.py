"""throughput: N one-shot actions due at the same instant; actions/s until the last finished.

Cadenza runs each runtime's trivial script in its sandbox; the peer runs a no-op function
with no sandbox at all. Drain time runs from the common due instant to the last finish.
N is 10 000 in full mode (100 in quick). In full mode the calibrated rates size the bursts
(`bench.budget.burst_sizes`), so the suite keeps its fifteen minutes:

- on SQLite python drains the 10 000 burst when its calibrated rate drains it within 17 s
  (about 590 actions/s: a 300-action calibration burst ran at ~60-90 % of a large burst's
  rate here), else as many as it drains in 17 s; micropython and wasm share one burst
  sized to the slower of them in 5 s. Both peer configurations run every size, so every
  ratio pairs equal bursts. The peer's defaults drain about 500 jobs/s here: the 10 000 case
  alone costs it some 25 s a repeat, which is why the other runtimes get the smaller burst;
- on PostgreSQL every runtime shares one burst sized to the slowest in 5 s.

The notes give the calibrated rates, every size below 10 000 and the estimated time.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bench.budget import burst_sizes, bursts_total_s
from bench.compare import Case, side_by_side
from bench.context import Context
from bench.peer import OURS, Peer, peers_for
from bench.results import Recorder, ScenarioResult, Status
from bench.workload import burst

RUNTIMES = ("python", "micropython", "wasm")
#: The runtime that gets the full burst first: the like-for-like of the peer's Python function.
REFERENCE = "python"
#: database -> (reference runtime or None, its drain budget in s, the shared burst's budget in s)
PLANS: dict[str, tuple[str | None, float, float]] = {
    "sqlite": (REFERENCE, 17.0, 5.0),
    "postgresql": (None, 5.0, 5.0),
}


def _record(
    recorder: Recorder, case: str, system: str, lateness_ms: list[float], drain_s: float, size: int
) -> None:
    recorder.add(case, system, "throughput", "actions/s", size / drain_s)
    recorder.add(case, system, "drain", "s", drain_s)


def _case(database: str, size: int, runtimes: Sequence[str], base_lead_s: float) -> Case:
    shape = burst("python", "", size, base_lead_s)
    return Case(f"{database}, {size} due at once", shape.offsets_s, shape.lead_s, tuple(runtimes))


def plan_notes(
    database: str, sizes: Mapping[int, Sequence[str]], target: int, estimate_s: float
) -> list[str]:
    """What the report says about the sizes that ran: each one below target, and the estimate."""
    notes = [
        f"{database}: {size} actions instead of {target} for {', '.join(runtimes)} "
        "(calibrated rate, see the module docstring)"
        for size, runtimes in sizes.items()
        if size < target
    ]
    return [*notes, f"{database}: these bursts were estimated at {estimate_s:.0f} s in all"]


async def run(ctx: Context) -> ScenarioResult:
    target = ctx.pick(100, 10_000)
    databases = ctx.pick(("sqlite",), ("sqlite", "postgresql"))
    runtimes = ctx.pick(("python",), RUNTIMES)
    recorder = Recorder()
    notes: list[str] = []
    for database in databases:

        def cases(rates: Mapping[str, float], database: str = database) -> Sequence[Case]:
            sizes = burst_sizes(rates, target, *PLANS[database])
            if ctx.calibrates:
                peers = peers_for(database)
                total_s = bursts_total_s(sizes, rates, peers, ctx.repeats, ctx.base_lead_s)
                notes.extend(plan_notes(database, sizes, target, total_s))
            return [
                _case(database, size, members, ctx.base_lead_s) for size, members in sizes.items()
            ]

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
        params={
            "target_actions": target,
            "tenants": 10,
            "runtimes": list(runtimes),
            "drain_budgets_s": ctx.pick(None, {db: list(PLANS[db][1:]) for db in databases}),
        },
        notes=notes,
        figures=recorder.figures(),
        ratios=ratios,
    )
