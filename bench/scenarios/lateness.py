"""lateness: a steady load of R actions/s; p50/p99/max of (run started - due), ours and peer's.

Each repeat's percentiles are computed on its own samples; the report shows the median of
each percentile over repeats, and plots the distribution of the last repeat. A rate above
what the calibration burst showed Cadenza can sustain runs for a shorter time (noted), so
that a backlog that only grows does not outlast the mode's time box.
"""

from __future__ import annotations

from collections.abc import Sequence

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


def load_duration_s(
    rate_per_s: float, duration_s: float, capacity_per_s: float, budget_s: float
) -> float:
    """`duration_s`, or less when `rate_per_s` exceeds capacity and the backlog would take longer
    than `budget_s` to drain (at least half a second of load)."""
    if rate_per_s <= capacity_per_s:
        return duration_s
    return max(0.5, min(duration_s, capacity_per_s * budget_s / rate_per_s))


async def run(ctx: Context) -> ScenarioResult:
    rates = ctx.pick((20,), (10, 100, 200, 1000))
    duration_s = ctx.pick(2.0, 5.0)
    budget_s = 6.0
    runtime = "python"
    recorder = Recorder()
    notes: list[str] = []

    def cases(capacity: float) -> Sequence[Case]:
        made = []
        for rate in rates:
            seconds = load_duration_s(rate, duration_s, capacity, budget_s)
            if seconds < duration_s:
                notes.append(f"{rate}/s ran for {seconds:.1f} s instead of {duration_s:.0f} s")
            shape = steady(runtime, "", rate, seconds, ctx.base_lead_s)
            made.append(
                Case(f"sqlite, {rate}/s for {seconds:.3g} s", shape.offsets_s, shape.lead_s)
            )
        return made

    notes += await side_by_side(ctx, "sqlite", cases, [runtime], recorder, _record, tenant_count=10)
    ratios = [ratio for peer in Peer for ratio in recorder.ratios(f"{OURS} ({runtime})", peer)]
    return ScenarioResult(
        "lateness",
        Status.OK if recorder.figures() else Status.FAILED,
        params={"rates_per_s": list(rates), "duration_s": duration_s, "runtime": runtime},
        notes=notes,
        figures=recorder.figures(),
        ratios=ratios,
        samples=recorder.samples,
    )
