"""Sandbox overhead per runtime: `python -m bench.sandbox [--quick] [--json]`.

For each runtime, with a warm cache (module compiled, script validated, workers forked):

- overhead: wall time of `runtime.run()` for a trivial script, one run at a time
  (median and p99; the script itself costs microseconds, so this is the sandbox's cost),
  and the CPU it costs per run in the engine and in the worker processes (all of it: forks,
  a micropython worker's boot of its next interpreter, the run): wall figures depend on
  what else the 2 cores are doing, CPU figures much less;
- python runs twice: `python` is one tenant's runs (its warm worker serves them, a fork every
  200 runs), `python-new-tenant` gives every run a tenant never seen before, so every run
  pays a fresh worker (the first run of a tenant, or after a recycle);
- throughput: runs/s with enough runs in flight to keep both cores busy;
- CPU bomb: how long after its deadline an infinite loop is reported stopped.

Targets: python <= 2 ms median overhead (issue 4), micropython <= 0.6 ms, wasm <= 0.3 ms
(issue 18); a CPU bomb stopped within its timeout + 100 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import statistics
import tempfile
import time
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import psutil
import uvloop

from sandbox import Limits, OutcomeStatus, RuntimeName, Sandbox, SandboxConfig, ScriptContext
from sandbox.memory_host import MemoryHost

TRIVIAL = {
    RuntimeName.PYTHON: "def main(ctx):\n    return 1\n",
    RuntimeName.MICROPYTHON: "def main(ctx):\n    return 1\n",
    RuntimeName.WASM: '(module (func (export "main") (result i32) i32.const 1))',
}
BOMB = {
    RuntimeName.PYTHON: "def main(ctx):\n    while True:\n        pass\n",
    RuntimeName.MICROPYTHON: "def main(ctx):\n    while True:\n        pass\n",
    RuntimeName.WASM: '(module (func (export "main") (loop (br 0))))',
}
CONTEXT = ScriptContext(
    tenant_id="bench",
    rule_id="r",
    rule_name="bench",
    scheduled_at=datetime(2026, 1, 1, tzinfo=UTC),
    attempt=1,
    params={},
    occurrence_id="o",
)
#: Runs in flight for the throughput figure, the same for every runtime (all run in workers).
IN_FLIGHT = 4
#: case name -> (runtime, whether every run is a new tenant's)
CASES = {
    "python": (RuntimeName.PYTHON, False),
    "python-new-tenant": (RuntimeName.PYTHON, True),
    "micropython": (RuntimeName.MICROPYTHON, False),
    "wasm": (RuntimeName.WASM, False),
}
_TENANTS = itertools.count()


def context(new_tenant: bool) -> ScriptContext:
    """The run's context: the one bench tenant, or a tenant never seen before."""
    return replace(CONTEXT, tenant_id=f"bench-{next(_TENANTS)}") if new_tenant else CONTEXT


async def overhead(
    sandbox: Sandbox, name: RuntimeName, runs: int, new_tenant: bool
) -> dict[str, float]:
    runtime, script = sandbox.runtime(name), TRIVIAL[name]
    await runtime.validate(script)
    for _ in range(20):  # warm-up: caches, pools, branch predictors
        await runtime.run(script, context(new_tenant), Limits(), MemoryHost())
    samples_ms = []
    engine_cpu_started_s, workers_cpu_started_s = time.process_time(), workers_cpu_s(sandbox)
    for _ in range(runs):
        started = time.perf_counter()
        outcome = await runtime.run(script, context(new_tenant), Limits(), MemoryHost())
        samples_ms.append((time.perf_counter() - started) * 1000)
        assert outcome.status is OutcomeStatus.OK, outcome.error
        await asyncio.sleep(0)
    engine_cpu_ms = (time.process_time() - engine_cpu_started_s) * 1000 / runs
    worker_cpu_ms = (workers_cpu_s(sandbox) - workers_cpu_started_s) * 1000 / runs
    samples_ms.sort()
    return {
        "overhead_median_ms": round(statistics.median(samples_ms), 3),
        "overhead_p99_ms": round(samples_ms[int(len(samples_ms) * 0.99) - 1], 3),
        # CPU spent per run, whatever else the machine is doing (wall figures are not)
        "engine_cpu_per_run_ms": round(engine_cpu_ms, 3),
        "worker_cpu_per_run_ms": round(worker_cpu_ms, 3),
    }


def workers_cpu_s(sandbox: Sandbox) -> float:
    """CPU used so far by every worker, the ones that ended (reaped by the zygote) included."""
    zygote = sandbox.zygote_pid
    if zygote is None:
        return 0.0
    process = psutil.Process(zygote)
    ended = process.cpu_times()
    total = ended.children_user + ended.children_system
    for child in process.children():
        try:
            times = child.cpu_times()
        except psutil.NoSuchProcess:
            continue
        total += times.user + times.system
    return total


async def throughput(
    sandbox: Sandbox, name: RuntimeName, seconds: float, new_tenant: bool
) -> dict[str, float]:
    runtime, script = sandbox.runtime(name), TRIVIAL[name]
    done = 0
    deadline = time.perf_counter() + seconds

    async def lane() -> None:
        nonlocal done
        while time.perf_counter() < deadline:
            await runtime.run(script, context(new_tenant), Limits(), MemoryHost())
            done += 1

    started = time.perf_counter()
    await asyncio.gather(*(lane() for _ in range(IN_FLIGHT)))
    return {"runs_per_s": round(done / (time.perf_counter() - started), 1)}


async def bomb(sandbox: Sandbox, name: RuntimeName, timeout_s: float) -> dict[str, float]:
    outcome = await sandbox.runtime(name).run(
        BOMB[name], CONTEXT, Limits(timeout_s=timeout_s), MemoryHost()
    )
    assert outcome.status is OutcomeStatus.TIMEOUT, outcome.error
    return {"cpu_bomb_late_ms": round((outcome.duration_s - timeout_s) * 1000, 1)}


async def measure(quick: bool) -> dict[str, dict[str, float]]:
    runs, seconds = (200, 2.0) if quick else (1000, 5.0)
    results: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="cadenza-bench-") as cache_dir:
        config = SandboxConfig(max_workers=4, cache_dir=Path(cache_dir))
        for case, (name, new_tenant) in CASES.items():
            # a sandbox per case: a worker reaped during a case (its whole life's CPU then
            # shows in the zygote's figures) is always one of that case's own
            async with Sandbox(replace(config, runtimes=(name,))) as sandbox:
                figures = await overhead(sandbox, name, runs, new_tenant)
                figures |= await throughput(sandbox, name, seconds, new_tenant)
                figures |= await bomb(sandbox, name, 0.5)
            results[case] = figures
    return results


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.sandbox", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--quick", action="store_true", help="fewer runs (about 20 s in all)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    results = uvloop.run(measure(args.quick))
    if args.json:
        print(json.dumps(results))
        return
    print(
        f"{'case':<18} {'median ms':>10} {'p99 ms':>8} {'engine cpu ms':>14}"
        f" {'worker cpu ms':>14} {'runs/s':>8} {'bomb late ms':>13}"
    )
    for name, f in results.items():
        print(
            f"{name:<18} {f['overhead_median_ms']:>10.3f} {f['overhead_p99_ms']:>8.3f}"
            f" {f['engine_cpu_per_run_ms']:>14.3f} {f['worker_cpu_per_run_ms']:>14.3f}"
            f" {f['runs_per_s']:>8.0f} {f['cpu_bomb_late_ms']:>13.1f}"
        )


if __name__ == "__main__":
    main()
