"""lateness: a steady load of R actions/s; p50/p99/max of (run started - due), ours and peer's.

Each repeat's percentiles are computed on its own samples; the report shows the median of
each percentile over repeats, and plots the distribution of the last repeat.
"""

from __future__ import annotations

from bench.compare import Case, side_by_side
from bench.context import Context
from bench.peer import OURS, Peer
from bench.results import Recorder, ScenarioResult, Status
from bench.stats import lateness_summary
from bench.workload import steady


def _record(
    recorder: Recorder, case: str, system: str, lateness_ms: list[float], drain_s: float, size: int
) -> None:
    summary = lateness_summary(lateness_ms)
    for name in ("p50_ms", "p99_ms", "max_ms"):
        recorder.add(case, system, f"lateness {name[:-3]}", "ms", summary[name])
    recorder.add_samples(case, system, "lateness_ms", lateness_ms)


async def run(ctx: Context) -> ScenarioResult:
    rates = ctx.pick((100,), (10, 100, 1000))
    duration_s = ctx.pick(2.0, 10.0)
    runtime = "python"
    recorder = Recorder()
    cases = []
    for rate in rates:
        shape = steady(runtime, "", rate, duration_s, ctx.base_lead_s)
        cases.append(
            Case(f"sqlite, {rate}/s for {duration_s:.0f} s", shape.offsets_s, shape.lead_s)
        )
    notes = await side_by_side(ctx, "sqlite", cases, [runtime], recorder, _record, tenant_count=10)
    ratios = []
    for peer in Peer:
        ratios += recorder.ratios(f"{OURS} ({runtime})", peer)
    return ScenarioResult(
        "lateness",
        Status.PARTIAL if notes else Status.OK,
        params={
            "rates_per_s": list(rates),
            "duration_s": duration_s,
            "runtime": runtime,
            "database": "sqlite",
        },
        notes=notes,
        figures=recorder.figures(),
        ratios=ratios,
        samples=recorder.samples,
    )
