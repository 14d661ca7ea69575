"""Running a selection of scenarios and writing `<results>/<date>.json` plus its report."""

from __future__ import annotations

import importlib
import json
import signal
import sys
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.catalog import ON_REQUEST, SCENARIOS
from bench.context import Context, Mode
from bench.databases import open_databases
from bench.machine import CpuSteal, describe_machine, speed_probe_ms
from bench.report import write_report
from bench.results import ScenarioResult, Status

RESULTS_DIR = Path(__file__).resolve().parent / "results"
SCHEMA = "cadenza-bench/1"


class UnknownScenario(ValueError):
    """A scenario name that the suite does not have."""


def check_names(names: Sequence[str]) -> list[str]:
    unknown = [n for n in names if n not in SCENARIOS]
    if unknown:
        raise UnknownScenario(
            f"unknown scenario {', '.join(unknown)}: choose from {', '.join(SCENARIOS)}"
        )
    return list(names) or [n for n in SCENARIOS if n not in ON_REQUEST]


async def _run_one(name: str, ctx: Context) -> ScenarioResult:
    module = importlib.import_module(f"bench.scenarios.{name}")
    probe_ms = speed_probe_ms()
    steal = CpuSteal()
    started = time.monotonic()
    ctx.log(f"{name}: {SCENARIOS[name]}")
    try:
        result: ScenarioResult = await module.run(ctx)
    except Exception as exc:  # a broken scenario is reported, the others still run
        result = ScenarioResult(name, Status.FAILED, notes=[f"{type(exc).__name__}: {exc}"])
    result.duration_s = time.monotonic() - started
    result.machine = {"speed_probe_ms": probe_ms, "cpu_steal_percent": steal.percent()}
    ctx.log(f"{name}: {result.status} in {result.duration_s:.0f} s")
    return result


def exit_on_sigterm() -> None:
    """SIGTERM unwinds like Ctrl-C, so the workers and servers the suite started are stopped."""
    signal.signal(signal.SIGTERM, lambda _signum, _frame: sys.exit(143))


def _stderr_log(origin_s: float) -> Callable[[str], None]:
    """Progress lines on stderr, each with the seconds since the suite started."""

    def log(line: str) -> None:
        print(f"[{time.monotonic() - origin_s:6.1f} s] {line}", file=sys.stderr, flush=True)

    return log


def _stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H%M%SZ")


async def run_suite(
    names: Sequence[str],
    mode: Mode,
    out_dir: Path = RESULTS_DIR,
    command: str = "",
    log: Callable[[str], None] | None = None,
) -> Path:
    """Run the scenarios (all when `names` is empty); return the path of the results JSON."""
    selected = check_names(names)
    log = log or _stderr_log(time.monotonic())
    started_at = datetime.now(UTC)
    machine = describe_machine()
    out_dir.mkdir(parents=True, exist_ok=True)
    with open_databases() as databases:
        ctx = Context(mode, databases, databases.work_dir, log)
        results = [await _run_one(name, ctx) for name in selected]
    run: dict[str, Any] = {
        "schema": SCHEMA,
        "started_at": started_at.isoformat(timespec="seconds"),
        "finished_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "mode": str(mode),
        "command": command or f"python -m bench{' --quick' if mode is Mode.QUICK else ''}",
        "repeats": ctx.repeats,
        "machine": machine,
    }
    stem = out_dir / _stamp(started_at)
    write_report(run, results, stem)
    run["scenarios"] = {r.name: r.to_json() for r in results}
    path = stem.with_suffix(".json")
    path.write_text(json.dumps(run, indent=1, default=str))
    return path


def statuses(path: Path) -> dict[str, str]:
    """Each scenario's status in a results file."""
    data = json.loads(path.read_text())
    return {name: str(s["status"]) for name, s in data["scenarios"].items()}


def summary_line(path: Path) -> str:
    """What the command prints at the end: each scenario's status and where the results are."""
    states = statuses(path)
    shown = ", ".join(f"{name} {status}" for name, status in states.items())
    return f"{shown}\nresults: {path}\nreport:  {path.with_suffix('.md')}"
