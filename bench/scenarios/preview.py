"""preview: schedule evaluation (parse + 10 occurrences) median/p99; pathological rejection.

Wraps the schedules engineer's `python -m bench.preview`, which prints one line per case
(`name  median_ms  p99_ms`); it runs once per repeat in its own process and the report shows
the median over repeats of each printed figure.
"""

from __future__ import annotations

import re

from bench.context import Context
from bench.processes import run_module
from bench.results import Recorder, ScenarioResult, Status

_LINE = re.compile(r"^  (?P<name>.+?)\s+(?P<median>[\d.]+)\s+(?P<p99>[\d.]+)\s*$")


def parse_output(text: str) -> list[tuple[str, str, float, float]]:
    """(section, case, median_ms, p99_ms) for every figure line under a section heading.

    The section is the heading up to its first comma or parenthesis: "pathological rule
    rejected, ms: median p99" gives "pathological rule rejected".
    """
    rows = []
    section = ""
    for line in text.splitlines():
        if match := _LINE.match(line):
            rows.append((section, match["name"], float(match["median"]), float(match["p99"])))
        elif line.strip():
            section = line.split(",")[0].split(" (")[0].strip()
    return rows


async def _run_module() -> str:
    code, stdout, stderr = await run_module("bench.preview")
    if code != 0:
        raise RuntimeError(f"python -m bench.preview failed: {stderr[-500:]}")
    return stdout


async def run(ctx: Context) -> ScenarioResult:
    recorder = Recorder()
    for repeat in range(ctx.light_repeats):
        ctx.log(f"  preview repeat {repeat + 1}")
        for section, case, median_ms, p99_ms in parse_output(await _run_module()):
            recorder.add(case, section, "median", "ms", median_ms)
            recorder.add(case, section, "p99", "ms", p99_ms)
    figures = recorder.figures()
    return ScenarioResult(
        "preview",
        Status.OK if figures else Status.FAILED,
        params={"source": "python -m bench.preview"},
        notes=[] if figures else ["python -m bench.preview printed no figures"],
        figures=figures,
    )
