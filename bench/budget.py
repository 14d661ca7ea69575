"""How big each full-mode load may be: the arithmetic that keeps `cadenza bench` in its time box.

Full mode promises under fifteen minutes on two cores for every scenario together, so the
comparison scenarios size their loads from a calibration burst: each load's wall time is
estimated from the calibrated rates (and the peer's rates measured on this machine) and the
sizes are the largest that fit the scenario's budget. The sizes that ran, and why, go in the
report's notes. Pure functions, so that tests can hold the sizing to known inputs.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from bench.workload import lead_s

#: Seconds one measured load costs beyond its lead and its drain: polling, reading the results.
RUN_OVERHEAD_S = 0.5
#: The peer's drain rates (jobs/s) measured here with `bench.peer.fire_all` on 1 000-job bursts
#: (2026-11-23, two loaded cores), used only to estimate how long its side of a case takes.
PEER_RATE_PER_S = {
    "apscheduler (defaults)": 500.0,
    "apscheduler (WAL, synchronous=NORMAL)": 2500.0,
    "apscheduler": 800.0,
}
#: The longest steady load the issue asks for, per rate.
LONGEST_STEADY_S = 60


def sized(rate_per_s: float, target: int, drain_budget_s: float) -> int:
    """`target`, or fewer (a multiple of 100, at least 100) if it would outlast the budget."""
    if math.isinf(rate_per_s):
        return target
    affordable = int(rate_per_s * drain_budget_s) // 100 * 100
    return max(100, min(target, affordable))


def burst_sizes(
    rates_per_s: Mapping[str, float],
    target: int,
    reference: str | None,
    reference_budget_s: float,
    shared_budget_s: float,
) -> dict[int, list[str]]:
    """Which runtimes drain which burst size: at most two sizes, so the peer runs at most two.

    The `reference` runtime (python: the like-for-like of the peer's Python function) drains
    `target`, or what its rate drains in `reference_budget_s`; the other runtimes share one
    burst sized to the slowest of them in `shared_budget_s`. The reference joins the shared
    burst when both are the same size (as in quick mode, where every rate is infinite and
    every burst is `target`). With `reference` None every runtime shares one burst. Sizes come
    largest first.
    """
    others = [r for r in rates_per_s if r != reference]
    sizes: dict[int, list[str]] = {}
    if others:
        slowest = min(rates_per_s[r] for r in others)
        sizes[sized(slowest, target, shared_budget_s)] = others
    if reference is not None and reference in rates_per_s:
        own = sized(rates_per_s[reference], target, reference_budget_s)
        sizes.setdefault(own, []).insert(0, reference)
    return dict(sorted(sizes.items(), reverse=True))


def burst_wall_s(size: int, rate_per_s: float, base_lead_s: float) -> float:
    """Estimated wall time of one burst: lead, drain at `rate_per_s`, overhead."""
    return lead_s(size, base_lead_s) + size / rate_per_s + RUN_OVERHEAD_S


def bursts_total_s(
    sizes: Mapping[int, Sequence[str]],
    rates_per_s: Mapping[str, float],
    peers: Sequence[str],
    repeats: int,
    base_lead_s: float,
) -> float:
    """Every burst size on its runtimes and on every peer, for every repeat."""
    per_repeat = sum(
        burst_wall_s(size, rate, base_lead_s)
        for size, runtimes in sizes.items()
        for rate in [*(rates_per_s[r] for r in runtimes), *(PEER_RATE_PER_S[p] for p in peers)]
    )
    return repeats * per_repeat


def steady_wall_s(
    rate_per_s: float, duration_s: float, capacity_per_s: float, base_lead_s: float
) -> float:
    """Estimated wall time of a steady load: lead, then the load or, above capacity, its backlog."""
    size = round(rate_per_s * duration_s)
    busy_s = max(duration_s, size / capacity_per_s)
    return lead_s(size, base_lead_s) + busy_s + RUN_OVERHEAD_S


def steady_total_s(
    rates_per_s: Sequence[float],
    duration_s: float,
    capacities_per_s: Sequence[float],
    repeats: int,
    base_lead_s: float,
) -> float:
    """Every rate on every system (one capacity each) for every repeat, one after another."""
    per_repeat = sum(
        steady_wall_s(rate, duration_s, capacity, base_lead_s)
        for rate in rates_per_s
        for capacity in capacities_per_s
    )
    return repeats * per_repeat


def steady_duration_s(
    rates_per_s: Sequence[float],
    capacities_per_s: Sequence[float],
    repeats: int,
    budget_s: float,
    base_lead_s: float,
) -> int:
    """The longest whole number of seconds per rate (1 to 60) whose estimate fits `budget_s`."""
    for duration_s in range(LONGEST_STEADY_S, 1, -1):
        total = steady_total_s(rates_per_s, duration_s, capacities_per_s, repeats, base_lead_s)
        if total <= budget_s:
            return duration_s
    return 1
