"""A scenario whose figures come from a benchmark module run with `--json` (`bench.preview`,
`bench.next_after`): once per repeat, each in a fresh process (so no repeat inherits the
previous one's caches), every figure recorded; the report shows the median over repeats."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

from bench.context import Context
from bench.processes import run_module
from bench.results import Recorder, ScenarioResult, Status

#: (case, system, metric, unit, value) rows read from one run's JSON.
Rows = Callable[[Any], Iterable[tuple[str, str, str, str, float]]]


async def run_json_module(ctx: Context, name: str, module: str, rows: Rows) -> ScenarioResult:
    recorder = Recorder()
    source = f"python -m {module} --json"
    for repeat in range(ctx.light_repeats):
        ctx.log(f"  {name} repeat {repeat + 1}")
        code, stdout, stderr = await run_module(module, "--json")
        if code != 0:
            raise RuntimeError(f"{source} failed: {stderr[-500:]}")
        for case, system, metric, unit, value in rows(json.loads(stdout)):
            recorder.add(case, system, metric, unit, value)
    figures = recorder.figures()
    return ScenarioResult(
        name,
        Status.OK if figures else Status.FAILED,
        params={"source": source},
        notes=[] if figures else [f"{source} gave no figures"],
        figures=figures,
    )
