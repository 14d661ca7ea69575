"""The arithmetic of the report: percentiles, medians over repeats and paired ratios.

Kept free of I/O and timing so that tests can prove it right on known inputs.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0..100) with linear interpolation between ranks (numpy's default)."""
    if not values:
        raise ValueError("percentile of no values: the measurement produced no samples")
    if not 0 <= q <= 100:
        raise ValueError(f"percentile {q} is outside 0..100")
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q / 100
    low = math.floor(rank)
    high = math.ceil(rank)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def lateness_summary(samples_ms: Sequence[float]) -> dict[str, float]:
    """p50, p99 and max of one repeat's lateness samples, plus how many there were."""
    return {
        "p50_ms": percentile(samples_ms, 50),
        "p99_ms": percentile(samples_ms, 99),
        "max_ms": max(samples_ms),
        "count": float(len(samples_ms)),
    }


def median(values: Sequence[float]) -> float:
    """The median over repeats; the one number every figure of the report shows."""
    if not values:
        raise ValueError("median of no repeats: the scenario measured nothing")
    return float(statistics.median(values))


def paired_ratios(ours: Sequence[float], peer: Sequence[float]) -> list[float]:
    """ours[i] / peer[i] for every repeat i: each pair was measured back to back in one run."""
    if len(ours) != len(peer):
        raise ValueError(f"cannot pair {len(ours)} repeats with {len(peer)}: run both equally")
    return [o / p if p else math.inf for o, p in zip(ours, peer, strict=True)]


def downsample(values: Sequence[float], limit: int) -> list[float]:
    """At most `limit` of `values`, evenly spaced in sorted order, to keep plots and JSON small."""
    ordered = sorted(values)
    if len(ordered) <= limit:
        return ordered
    step = (len(ordered) - 1) / (limit - 1)
    return [ordered[round(i * step)] for i in range(limit)]
