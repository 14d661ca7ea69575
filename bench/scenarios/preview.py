"""preview: schedule evaluation (parse + 10 occurrences) median/p99; pathological rejection.

Runs `python -m bench.preview --json` (see `json_module`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from bench.context import Context
from bench.results import ScenarioResult
from bench.scenarios.json_module import run_json_module


def figures_of(data: Any) -> list[tuple[str, str, float, float]]:
    """(section, case, median_ms, p99_ms) for every row of `bench.preview --json`'s output."""
    return [
        (str(row["section"]), str(row["case"]), float(row["median_ms"]), float(row["p99_ms"]))
        for row in data["figures"]
    ]


def _rows(data: Any) -> Iterator[tuple[str, str, str, str, float]]:
    for section, case, median_ms, p99_ms in figures_of(data):
        yield case, section, "median", "ms", median_ms
        yield case, section, "p99", "ms", p99_ms


async def run(ctx: Context) -> ScenarioResult:
    return await run_json_module(ctx, "preview", "bench.preview", _rows)
