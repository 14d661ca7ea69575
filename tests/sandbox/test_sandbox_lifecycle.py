"""Workers that die and sandboxes that shut down: outcomes, never engine errors."""

from __future__ import annotations

import asyncio
import contextlib
import signal
from typing import Any

import psutil
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sandbox import Limits, OutcomeStatus, Sandbox, SandboxConfig, SandboxError
from sandbox.memory_host import MemoryHost

ONE_CALL = "def main(ctx):\n    ctx.kv.get('k')\n    return 'unreachable'\n"


class KillingHost(MemoryHost):
    """Answers the first kv call by killing every worker of the zygote from outside (as the
    kernel's OOM killer would): not the script's doing."""

    def __init__(self, zygote_pid: int) -> None:
        super().__init__()
        self._zygote = psutil.Process(zygote_pid)

    async def kv_get(self, key: str) -> Any | None:
        for worker in self._zygote.children():
            worker.send_signal(signal.SIGKILL)
        await asyncio.sleep(0.2)
        return None


async def test_a_crashed_worker_is_an_outcome(context) -> None:
    async with Sandbox(SandboxConfig(max_workers=1, runtimes=("python",))) as box:
        assert box._pool is not None and box._pool._process is not None
        host = KillingHost(box._pool._process.pid)
        outcome = await box.runtime("python").run(ONE_CALL, context, Limits(), host)
        assert outcome.status is OutcomeStatus.CRASHED
        assert outcome.error == "the worker died without reporting (SIGKILL)"
        after = await box.runtime("python").run(
            "def main(ctx):\n    return 2\n", context, Limits(), MemoryHost()
        )
        assert after.status is OutcomeStatus.OK and after.result == 2


async def test_runs_in_progress_end_as_killed_at_shutdown(context) -> None:
    async with Sandbox(SandboxConfig(max_workers=1, runtimes=("python",))) as box:
        runtime = box.runtime("python")
        loop_script = "def main(ctx):\n    while True:\n        pass\n"
        running = asyncio.create_task(
            runtime.run(loop_script, context, Limits(timeout_s=30), MemoryHost())
        )
        await asyncio.sleep(0.5)
    outcome = await running
    assert outcome.status is OutcomeStatus.KILLED
    with pytest.raises(SandboxError, match="not started"):
        box.runtime("python")


async def test_unknown_runtime_names_the_known_ones() -> None:
    with pytest.raises(SandboxError, match="use one of python, micropython, wasm"):
        Sandbox().runtime("lua")


async def test_an_on_demand_sandbox_starts_its_zygote_at_the_first_run_and_only_once(
    context,
) -> None:
    config = SandboxConfig(max_workers=1, runtimes=("python",), on_demand=True)
    async with Sandbox(config) as box:
        assert box.zygote_pid is None, "entering an on-demand sandbox started a zygote"
        script = "def main(ctx):\n    return ctx.params['threshold']\n"
        runtime = box.runtime("python")
        together = [runtime.run(script, context, Limits(), MemoryHost()) for _ in range(3)]
        outcomes = await asyncio.gather(*together)
        assert [o.result for o in outcomes] == [10, 10, 10]
        zygotes = [p.pid for p in psutil.Process().children() if "sandbox.zygote" in p.cmdline()]
        zygote = box.zygote_pid
        assert zygotes == [zygote], "three runs at once started more than one zygote"
        again = await runtime.run(script, context, Limits(), MemoryHost())
        assert again.status is OutcomeStatus.OK and box.zygote_pid == zygote
    assert not psutil.pid_exists(zygote)


async def test_an_on_demand_sandbox_never_used_stops_cleanly() -> None:
    config = SandboxConfig(max_workers=1, runtimes=("python",), on_demand=True)
    async with Sandbox(config) as box:
        assert box.worker_counts().started == 0
    assert box.zygote_pid is None


def _zygotes() -> list[int]:
    """This process's live sandbox zygotes."""
    found = []
    for child in psutil.Process().children():
        with contextlib.suppress(psutil.Error):  # a child may exit while it is looked at
            if child.status() != psutil.STATUS_ZOMBIE and "sandbox.zygote" in child.cmdline():
                found.append(child.pid)
    return found


async def _race(
    context: Any, delays: list[float], cancels: dict[int, float], stop_after: float | None
) -> None:
    config = SandboxConfig(max_workers=1, runtimes=("python",), on_demand=True)
    script = "def main(ctx):\n    return ctx.params['threshold']\n"

    async def one(delay: float) -> Any:
        await asyncio.sleep(delay)
        return await box.runtime("python").run(script, context, Limits(), MemoryHost())

    async with Sandbox(config) as box:
        tasks = [asyncio.create_task(one(d)) for d in delays]
        loop = asyncio.get_running_loop()
        for i, after in cancels.items():
            if i < len(tasks):  # while its run waits for the zygote's start, or runs
                loop.call_later(delays[i] + after, tasks[i].cancel)
        if stop_after is None:
            ends = await asyncio.gather(*tasks, return_exceptions=True)
            assert len(_zygotes()) <= 1, "runs at once started more than one zygote"
        else:
            await asyncio.sleep(stop_after)
    if stop_after is not None:
        async with asyncio.timeout(20):  # a stop must not leave a start waiting for a zygote
            ends = await asyncio.gather(*tasks, return_exceptions=True)
    for i, end in enumerate(ends):
        if isinstance(end, asyncio.CancelledError):
            assert i in cancels
        elif isinstance(end, SandboxError):
            assert stop_after is not None, end
        else:
            assert not isinstance(end, BaseException), end
            assert end.status is OutcomeStatus.OK or (
                stop_after is not None and end.status is OutcomeStatus.KILLED
            ), end
    assert _zygotes() == [], "a zygote outlived its sandbox"


@settings(
    max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    delays=st.lists(st.floats(0, 0.03), min_size=2, max_size=5),
    cancels=st.dictionaries(st.integers(0, 4), st.floats(0, 0.3), max_size=2),
    stop_after=st.none() | st.floats(0, 0.3),
)
def test_on_demand_start_under_racing_runs_cancels_and_a_stop(
    context: Any, delays: list[float], cancels: dict[int, float], stop_after: float | None
) -> None:
    """Runs arriving at random moments, some cancelled while the zygote starts, and the
    sandbox sometimes stopped in the middle: one zygote at most, none left after the stop,
    and no run waits on a start that the stop ended."""
    asyncio.run(_race(context, delays, cancels, stop_after))
