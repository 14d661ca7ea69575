"""sandbox: per-run overhead of each runtime (trivial script, warm cache); runs/s, both cores busy.

Wraps the sandbox engineer's `python -m bench.sandbox --json` (passing `--quick` in quick mode
when it offers one), each pass in its own process: the module takes its medians and p99s over
many runs itself, and one full pass takes about half a minute. It runs three passes and reports
the median of each figure, like every other scenario's repeats: one pass lands wherever this VM
happens to be slow (a single pass measured wasm's overhead anywhere from 0.22 to 0.48 ms the
same morning). Every number in its JSON becomes a figure: `{"python": {"overhead_median_ms":
1.2}}` reads as case python, metric overhead_median_ms.
"""

from __future__ import annotations

import json
from importlib.util import find_spec
from typing import Any

from bench.context import Context
from bench.processes import run_module
from bench.results import Recorder, ScenarioResult, Status

_UNITS = {"_ms": "ms", "_s": "s", "_per_s": "/s", "_bytes": "bytes", "_mb": "MB"}


def unit_of(metric: str) -> str:
    """The unit a metric name ends with (`overhead_median_ms` -> ms), longest suffix first."""
    for suffix in sorted(_UNITS, key=len, reverse=True):
        if metric.endswith(suffix):
            return _UNITS[suffix]
    return ""


def flatten(data: Any, case: str = "sandbox") -> list[tuple[str, str, float]]:
    """(case, metric, value) for every number: top-level keys are cases, nested keys metrics."""
    found: list[tuple[str, str, float]] = []
    if not isinstance(data, dict):
        return found
    for key, value in data.items():
        if isinstance(value, bool):
            continue
        if isinstance(value, int | float):
            found.append((case, str(key), float(value)))
        elif isinstance(value, dict):
            inner = str(key) if case == "sandbox" else f"{case} {key}"
            found += flatten(value, inner)
    return found


async def run(ctx: Context) -> ScenarioResult:
    if find_spec("bench.sandbox") is None:
        return ScenarioResult("sandbox", Status.SKIPPED, notes=["bench/sandbox.py is missing"])
    _code, usage, _err = await run_module("bench.sandbox", "--help")
    args = ["--json", *(["--quick"] if ctx.pick(True, False) and "--quick" in usage else [])]
    recorder = Recorder()
    for index in range(ctx.repeats):
        ctx.log(f"  python -m bench.sandbox {' '.join(args)}, pass {index + 1}")
        code, out, err = await run_module("bench.sandbox", *args)
        try:
            data = json.loads(out)
        except ValueError:
            note = f"python -m bench.sandbox {' '.join(args)} gave no JSON (exit {code}): "
            return ScenarioResult("sandbox", Status.FAILED, notes=[note + (err or out)[-400:]])
        for case, metric, value in flatten(data):
            recorder.add(case, "cadenza", metric, unit_of(metric), value)
    return ScenarioResult(
        "sandbox",
        Status.OK,
        params={"source": f"python -m bench.sandbox {' '.join(args)}"},
        figures=recorder.figures(),
    )
