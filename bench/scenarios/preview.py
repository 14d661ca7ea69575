"""preview: schedule evaluation (parse + 10 occurrences) median/p99; pathological rejection.

Runs the schedules engineer's `python -m bench.preview --json` once per repeat, each in a
fresh process (so no repeat inherits the previous one's parse cache), and records every
figure of its JSON; the report shows the median over repeats of each.
"""

from __future__ import annotations

import json
from typing import Any

from bench.context import Context
from bench.processes import run_module
from bench.results import Recorder, ScenarioResult, Status

ARGS = ("--json",)


def figures_of(data: Any) -> list[tuple[str, str, float, float]]:
    """(section, case, median_ms, p99_ms) for every row of `bench.preview --json`'s output."""
    return [
        (str(row["section"]), str(row["case"]), float(row["median_ms"]), float(row["p99_ms"]))
        for row in data["figures"]
    ]


async def _measured() -> list[tuple[str, str, float, float]]:
    code, stdout, stderr = await run_module("bench.preview", *ARGS)
    if code != 0:
        raise RuntimeError(f"python -m bench.preview failed: {stderr[-500:]}")
    return figures_of(json.loads(stdout))


async def run(ctx: Context) -> ScenarioResult:
    recorder = Recorder()
    for repeat in range(ctx.light_repeats):
        ctx.log(f"  preview repeat {repeat + 1}")
        for section, case, median_ms, p99_ms in await _measured():
            recorder.add(case, section, "median", "ms", median_ms)
            recorder.add(case, section, "p99", "ms", p99_ms)
    figures = recorder.figures()
    source = " ".join(["python -m bench.preview", *ARGS])
    return ScenarioResult(
        "preview",
        Status.OK if figures else Status.FAILED,
        params={"source": source},
        notes=[] if figures else [f"{source} gave no figures"],
        figures=figures,
    )
