"""Warm python workers: a tenant's runs share a worker, another tenant's never do, and a
worker that may be in a bad state is recycled. Limits hold on every run of a warm worker."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import psutil
import pytest
import pytest_asyncio
from support.sandbox_fixtures import body

from sandbox import Limits, OutcomeStatus, RuntimeName, Sandbox, SandboxConfig, ScriptContext
from sandbox.memory_host import MemoryHost
from sandbox.warm import WarmPolicy

pytestmark = pytest.mark.asyncio(loop_scope="module")

MIB = 1024 * 1024
COUNTING = "seen = []\ndef main(ctx):\n    seen.append(1)\n    return len(seen)\n"
PLANT_DECIMAL = (
    "import decimal\ndef main(ctx):\n    decimal.setcontext(decimal.Context(prec=3))\n"
    "    return str(decimal.Decimal(1) / 7)\n"
)
READ_DECIMAL = "import decimal\ndef main(ctx):\n    return decimal.getcontext().prec\n"
LOOP = body("while True:", "    pass")
OK = OutcomeStatus.OK


def burn(cpu_s: float) -> str:
    """A script that spends `cpu_s` of CPU time and returns."""
    return body(
        "started = time.process_time()",
        f"while time.process_time() - started < {cpu_s}:",
        "    pass",
        "return 'burnt'",
    ).replace("def main", "import time\ndef main")


async def test_a_tenants_next_run_reuses_its_worker_with_fresh_globals(run) -> None:
    first = await run("python", COUNTING, tenant_id="t-reuse")
    second = await run("python", COUNTING, tenant_id="t-reuse")
    assert (first.status, second.status) == (OK, OK)
    assert (first.result, second.result) == (1, 1)
    assert first.pid == second.pid


async def test_another_tenant_never_gets_the_worker_or_its_state(run) -> None:
    planted = await run("python", PLANT_DECIMAL, tenant_id="t-a")
    other = await run("python", READ_DECIMAL, tenant_id="t-b")
    own_again = await run("python", READ_DECIMAL, tenant_id="t-a")
    assert planted.result == "0.143"
    assert other.result == 28
    assert other.pid != planted.pid
    assert own_again.pid == planted.pid  # A's worker was kept, and still not given to B
    assert own_again.result == 28  # and even A's next run starts from a fresh context


async def test_concurrent_runs_of_two_tenants_never_share_a_worker(run) -> None:
    tenants = ["t-x", "t-y"] * 3
    rounds = [
        await asyncio.gather(*(run("python", COUNTING, tenant_id=t) for t in tenants))
        for _ in range(2)
    ]
    pairs = [(t, o) for round_ in rounds for t, o in zip(tenants, round_, strict=True)]
    pids = {tenant: {o.pid for t, o in pairs if t == tenant} for tenant in ("t-x", "t-y")}
    assert {o.result for _, o in pairs} == {1}
    assert pids["t-x"].isdisjoint(pids["t-y"])
    assert len(pids["t-x"]) < 6  # the second round found the first round's workers warm


@pytest.mark.parametrize(
    ("script", "limits", "status"),
    [
        pytest.param(LOOP, Limits(timeout_s=1.0), OutcomeStatus.TIMEOUT, id="timeout"),
        pytest.param(
            body("return len(b'x' * (10 ** 10))"),
            Limits(memory_bytes=64 * MIB),
            OutcomeStatus.MEMORY,
            id="memory",
        ),
        pytest.param(
            body("while True:", "    print('x' * 100)"),
            Limits(output_bytes=1000),
            OutcomeStatus.OUTPUT_LIMIT,
            id="output-limit",
        ),
    ],
)
async def test_a_worker_is_recycled_after_a_bad_outcome(
    run, script: str, limits: Limits, status: OutcomeStatus
) -> None:
    tenant = f"t-recycle-{status}"
    warm = await run("python", COUNTING, limits, tenant_id=tenant)
    bad = await run("python", script, limits, tenant_id=tenant)
    after = await run("python", COUNTING, limits, tenant_id=tenant)
    assert bad.status is status, bad.error
    assert bad.pid == warm.pid  # the bad run happened in the warm worker
    assert after.status is OK and after.pid != bad.pid


async def test_cpu_limit_holds_on_the_kth_run_of_a_warm_worker(run) -> None:
    limits = Limits(timeout_s=30.0, cpu_s=0.5)
    burns = [await run("python", burn(0.3), limits, tenant_id="t-cpu") for _ in range(3)]
    bomb = await run("python", LOOP, limits, tenant_id="t-cpu")
    # 0.9 s of CPU in all, yet each run had its own 0.5 s: RLIMIT_CPU is set per run
    assert [b.status for b in burns] == [OK, OK, OK], [b.error for b in burns]
    assert len({b.pid for b in burns} | {bomb.pid}) == 1
    assert bomb.status is OutcomeStatus.TIMEOUT
    assert bomb.error == "used more than 0.5 s of CPU time"
    assert bomb.cpu_s is not None and bomb.cpu_s < 2.0  # whole seconds: at most 1 s over


async def test_memory_limit_holds_on_a_warm_worker(run) -> None:
    limits = Limits(memory_bytes=64 * MIB)
    keeps_40_mib = f"kept = b'x' * {40 * MIB}\ndef main(ctx):\n    return len(kept)\n"
    first = await run("python", keeps_40_mib, limits, tenant_id="t-mem")
    second = await run("python", keeps_40_mib, limits, tenant_id="t-mem")  # 40 + 40 > 64
    grab_80_mib = body(f"return len(b'x' * {80 * MIB})")
    bomb = await run("python", grab_80_mib, limits, tenant_id="t-mem")
    assert (first.status, second.status) == (OK, OK), second.error
    assert second.pid == first.pid  # the first run's 40 MiB did not stay behind
    assert bomb.status is OutcomeStatus.MEMORY and bomb.pid == first.pid


async def python_only(warm: WarmPolicy) -> AsyncIterator[Sandbox]:
    config = SandboxConfig(max_workers=1, runtimes=(RuntimeName.PYTHON,), warm=warm)
    async with Sandbox(config) as box:
        yield box


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def short_lived() -> AsyncIterator[Sandbox]:
    async for box in python_only(WarmPolicy(max_runs=2)):
        yield box


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def quickly_idle() -> AsyncIterator[Sandbox]:
    async for box in python_only(WarmPolicy(idle_s=0.05)):
        yield box


async def test_a_worker_is_recycled_after_max_runs(
    short_lived: Sandbox, context: ScriptContext
) -> None:
    runtime = short_lived.runtime("python")
    outcomes = [await runtime.run(COUNTING, context, Limits(), MemoryHost()) for _ in range(3)]
    assert [o.result for o in outcomes] == [1, 1, 1]
    assert outcomes[0].pid == outcomes[1].pid != outcomes[2].pid


async def test_an_idle_worker_is_recycled(quickly_idle: Sandbox, context: ScriptContext) -> None:
    runtime = quickly_idle.runtime("python")
    first = await runtime.run(COUNTING, context, Limits(), MemoryHost())
    assert first.status is OK and first.pid is not None
    await asyncio.to_thread(psutil.Process(first.pid).wait, 30)  # its idle timer kills it
    second = await runtime.run(COUNTING, context, Limits(), MemoryHost())
    assert second.status is OK and second.pid != first.pid


async def test_a_micropython_tenants_runs_back_to_back_share_one_worker(run) -> None:
    """A micropython worker rewinds its interpreter as it reports, so it is ready for the next
    run at once: back-to-back runs all go to it, each with fresh globals."""
    outcomes = [await run("micropython", COUNTING, tenant_id="t-rotate") for _ in range(12)]
    assert {o.result for o in outcomes} == {1}
    assert len({o.pid for o in outcomes}) == 1
