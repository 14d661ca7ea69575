"""next_after: the cost of one next-occurrence call for second-, minute- and hour-grained rules,
beside `every 17s` and APScheduler's triggers of the same cadence (`python -m bench.next_after`),
in microseconds (tens of them would print as 0.00 ms)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from bench.context import Context
from bench.results import ScenarioResult
from bench.scenarios.json_module import run_json_module


def figures_of(data: Any) -> list[tuple[str, str, float, float]]:
    """(case, system, median_ms, p99_ms) for every row of `bench.next_after --json`'s output."""
    return [
        (str(row["case"]), str(row["system"]), float(row["median_ms"]), float(row["p99_ms"]))
        for row in data["figures"]
    ]


def _rows(data: Any) -> Iterator[tuple[str, str, str, str, float]]:
    for case, system, median_ms, p99_ms in figures_of(data):
        yield case, system, "median", "us", median_ms * 1000
        yield case, system, "p99", "us", p99_ms * 1000


async def run(ctx: Context) -> ScenarioResult:
    return await run_json_module(ctx, "next_after", "bench.next_after", _rows)
