"""Workers that die and sandboxes that shut down: outcomes, never engine errors."""

from __future__ import annotations

import asyncio
import signal
from typing import Any

import psutil
import pytest

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
