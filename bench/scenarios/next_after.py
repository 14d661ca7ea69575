"""next_after: the cost of one next-occurrence call for second-, minute- and hour-grained rules,
beside `every 17s` and APScheduler's triggers of the same cadence.

Runs `python -m bench.next_after --json` once per repeat, each in a fresh process, and records
every figure of its JSON in microseconds; the report shows the median over repeats of each.
"""

from __future__ import annotations

import json
from typing import Any

from bench.context import Context
from bench.processes import run_module
from bench.results import Recorder, ScenarioResult, Status

ARGS = ("--json",)


def figures_of(data: Any) -> list[tuple[str, str, float, float]]:
    """(case, system, median_ms, p99_ms) for every row of `bench.next_after --json`'s output."""
    return [
        (str(row["case"]), str(row["system"]), float(row["median_ms"]), float(row["p99_ms"]))
        for row in data["figures"]
    ]


async def run(ctx: Context) -> ScenarioResult:
    recorder = Recorder()
    source = " ".join(["python -m bench.next_after", *ARGS])
    for repeat in range(ctx.light_repeats):
        ctx.log(f"  next_after repeat {repeat + 1}")
        code, stdout, stderr = await run_module("bench.next_after", *ARGS)
        if code != 0:
            raise RuntimeError(f"{source} failed: {stderr[-500:]}")
        for case, system, median_ms, p99_ms in figures_of(json.loads(stdout)):
            recorder.add(case, system, "median", "us", median_ms * 1000)  # tens of µs: ms
            recorder.add(case, system, "p99", "us", p99_ms * 1000)  # would print 0.00
    figures = recorder.figures()
    return ScenarioResult(
        "next_after",
        Status.OK if figures else Status.FAILED,
        params={"source": source},
        notes=[] if figures else [f"{source} gave no figures"],
        figures=figures,
    )
