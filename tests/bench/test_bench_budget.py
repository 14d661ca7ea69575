"""Full-mode sizing on known rates: burst sizes, steady durations and their time estimates."""

from __future__ import annotations

import math

import pytest

from bench.budget import (
    burst_sizes,
    burst_wall_s,
    bursts_total_s,
    sized,
    steady_duration_s,
    steady_total_s,
    steady_wall_s,
)
from bench.scenarios.throughput import plan_notes

DEFAULTS = "apscheduler (defaults)"  # 500 jobs/s in the estimate


@pytest.mark.parametrize(
    ("rate_per_s", "expected"),
    [
        (5000.0, 10_000),  # fast enough: the target as asked
        (450.0, 5400),  # 450/s x 12 s, rounded down to hundreds
        (3.0, 100),  # never below 100 actions
        (math.inf, 10_000),  # not calibrated (quick mode): the target
    ],
)
def test_burst_size_follows_calibrated_rate(rate_per_s: float, expected: int) -> None:
    assert sized(rate_per_s, 10_000, 12.0) == expected


@pytest.mark.parametrize(
    ("rates", "reference", "expected"),
    [
        # python at 950/s drains 10 000 in 12 s; the others share 5 s of micropython's 300/s
        (
            {"python": 950, "micropython": 300, "wasm": 1000},
            "python",
            {10_000: ["python"], 1500: ["micropython", "wasm"]},
        ),
        # a loaded python drains 6 600 in 12 s: its own burst, still larger than the shared one
        (
            {"python": 550, "micropython": 285, "wasm": 770},
            "python",
            {6600: ["python"], 1400: ["micropython", "wasm"]},
        ),
        # a python slower than the shared burst keeps its own smaller one (never over budget)
        (
            {"python": 100, "micropython": 300, "wasm": 1000},
            "python",
            {1500: ["micropython", "wasm"], 1200: ["python"]},
        ),
        # quick mode: nothing calibrated, one case of the target for everyone
        (
            {"python": math.inf, "micropython": math.inf, "wasm": math.inf},
            "python",
            {10_000: ["python", "micropython", "wasm"]},
        ),
        # no reference (PostgreSQL): one burst sized to the slowest runtime in 5 s
        (
            {"python": 570, "micropython": 178, "wasm": 410},
            None,
            {800: ["python", "micropython", "wasm"]},
        ),
        # only the reference is ready
        ({"python": 950}, "python", {10_000: ["python"]}),
    ],
    ids=["idle-sqlite", "loaded-sqlite", "slow-reference", "quick", "postgresql", "alone"],
)
def test_burst_sizes_give_the_reference_its_own_budget(
    rates: dict[str, float], reference: str | None, expected: dict[int, list[str]]
) -> None:
    sizes = burst_sizes(rates, 10_000, reference, 12.0, 5.0)
    assert sizes == expected
    assert list(sizes) == sorted(sizes, reverse=True)


def test_burst_estimate_adds_lead_drain_and_overhead_for_every_system() -> None:
    # lead 2 s + 0.3 s per 1 000 loaded, drain 1 000 at 500/s, 0.5 s overhead: 4.8 s
    assert burst_wall_s(1000, 500.0, 2.0) == pytest.approx(4.8)
    total = bursts_total_s({1000: ["python"]}, {"python": 500.0}, [DEFAULTS], 2, 2.0)
    assert total == pytest.approx(2 * (4.8 + 4.8))


def test_steady_estimate_counts_the_backlog_above_capacity() -> None:
    # 10/s for 10 s, well under capacity: lead 2.03 s + 10 s + 0.5 s
    assert steady_wall_s(10, 10, 1000, 2.0) == pytest.approx(12.53)
    # 1 000/s for 10 s on a 500/s system: 10 000 actions take 20 s to run
    assert steady_wall_s(1000, 10, 500, 2.0) == pytest.approx(2 + 3 + 20 + 0.5)


@pytest.mark.parametrize("budget_s", [100.0, 170.0, 400.0])
def test_steady_duration_is_the_longest_that_fits(budget_s: float) -> None:
    rates, capacities = (10, 100, 1000), (950.0, 2500.0)
    duration_s = steady_duration_s(rates, capacities, 3, budget_s, 2.0)
    assert 1 <= duration_s < 60
    assert steady_total_s(rates, duration_s, capacities, 3, 2.0) <= budget_s
    assert steady_total_s(rates, duration_s + 1, capacities, 3, 2.0) > budget_s


def test_steady_duration_is_capped_at_the_issues_60_s_and_floored_at_1_s() -> None:
    assert steady_duration_s((10,), (1000.0,), 3, 1e6, 2.0) == 60
    assert steady_duration_s((10, 100, 1000), (950.0, 2500.0), 3, 10.0, 2.0) == 1


def test_plan_notes_name_every_reduced_burst_and_the_estimate() -> None:
    notes = plan_notes("sqlite", {10_000: ["python"], 1500: ["micropython", "wasm"]}, 10_000, 212)
    assert notes == [
        "sqlite: 1500 actions instead of 10000 for micropython, wasm "
        "(calibrated rate, see the module docstring)",
        "sqlite: these bursts were estimated at 212 s in all",
    ]
