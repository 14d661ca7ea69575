"""Resource bombs against the python runtime: each ends with its own status, inside its limit,
and the engine process is unharmed."""

from __future__ import annotations

import asyncio
import os
import time

import psutil
import pytest
from support.sandbox_fixtures import CATCHING_CPU_LOOP, body

from sandbox import Limits, OutcomeStatus

pytestmark = pytest.mark.asyncio(loop_scope="module")

#: The bombs' wall-clock limit. Those that end by another limit (memory, output) must reach it
#: first: 1 s was not enough on a loaded CI machine (a memory bomb ended `timeout`).
TIMEOUT_S = 3.0
LIMITS = Limits(timeout_s=TIMEOUT_S, memory_bytes=64 * 1024 * 1024, output_bytes=4096)


BOMBS = [
    ("cpu-loop", body("while True:", "    pass"), OutcomeStatus.TIMEOUT),
    (
        "cpu-loop-catching-everything",
        CATCHING_CPU_LOOP,
        OutcomeStatus.TIMEOUT,
    ),
    ("huge-int", body("return 10 ** 10 ** 10"), OutcomeStatus.TIMEOUT),
    (
        "regex-backtracking",
        "import re\n" + body("return bool(re.match('(a+)+$', 'a' * 64 + 'b'))"),
        OutcomeStatus.TIMEOUT,
    ),
    ("sleep", "import time\n" + body("time.sleep(60)"), OutcomeStatus.TIMEOUT),
    (
        "memory-list",
        body("x = []", "while True:", "    x.append('a' * 1000000)"),
        OutcomeStatus.MEMORY,
    ),
    ("memory-one-allocation", body("return len(b'x' * (10 ** 10))"), OutcomeStatus.MEMORY),
    ("output-flood", body("while True:", "    print('x' * 1000)"), OutcomeStatus.OUTPUT_LIMIT),
    # 1 MB, 16x the result limit: a 10 MB result spent ~60 ms of CPU encoding and measuring
    # it, which a loaded machine once stretched past a 1 s wall-clock limit (ended `timeout`).
    ("result-flood", body("return 'x' * 1000000"), OutcomeStatus.OUTPUT_LIMIT),
    ("log-flood", body("while True:", "    ctx.log('x' * 1000)"), OutcomeStatus.OUTPUT_LIMIT),
    ("emit-flood", body("while True:", "    ctx.emit('e', 1)"), OutcomeStatus.OUTPUT_LIMIT),
    ("recursion", "def f(n):\n    return f(n + 1)\n" + body("return f(0)"), OutcomeStatus.ERROR),
    ("int-to-str-digits", body("return str(10 ** 5000)"), OutcomeStatus.ERROR),
    (
        "deep-result",
        body("x = []", "for i in range(100000):", "    x = [x]", "return x"),
        OutcomeStatus.ERROR,
    ),
    (
        "nested-parentheses",
        "def main(ctx):\n    return " + "(" * 100000 + "1" + ")" * 100000 + "\n",
        OutcomeStatus.REJECTED,
    ),
    ("nested-unary", "def main(ctx):\n    return " + "-" * 200000 + "1\n", OutcomeStatus.REJECTED),
    (
        "nested-blocks",
        "def main(ctx):\n"
        + "".join(" " * i + "if 1:\n" for i in range(1, 200))
        + " " * 200
        + "pass\n",
        OutcomeStatus.REJECTED,
    ),
]


@pytest.mark.parametrize(("script", "status"), [b[1:] for b in BOMBS], ids=[b[0] for b in BOMBS])
async def test_bomb_ends_with_its_status_inside_its_limit(
    run, script: str, status: OutcomeStatus
) -> None:
    started = time.monotonic()
    outcome = await run("python", script, LIMITS)
    assert outcome.status is status, (outcome.status, outcome.error)
    assert time.monotonic() - started < TIMEOUT_S + 1.5  # generous: 2 shared cores
    assert outcome.error


async def test_cpu_bomb_stops_close_to_its_deadline(run) -> None:
    outcome = await run("python", body("while True:", "    pass"), Limits(timeout_s=1.0))
    assert outcome.status is OutcomeStatus.TIMEOUT
    assert outcome.error is not None and outcome.error.startswith("stopped after 1.0 s (limit 1 s)")
    assert 1.0 <= outcome.duration_s < 3 * 1.0  # bench/sandbox.py measures the real margin


async def test_cpu_limit_below_the_wall_clock_is_its_own_timeout(run) -> None:
    # The wall clock is far above the CPU limit, so that a loaded machine, where the script
    # gets a fraction of a core, still reaches the CPU limit first.
    limits = Limits(timeout_s=60.0, cpu_s=1.0)
    outcome = await run("python", body("while True:", "    pass"), limits)
    assert outcome.status is OutcomeStatus.TIMEOUT
    assert outcome.error == "used more than 1 s of CPU time"
    assert outcome.duration_s < 60.0  # the CPU limit, not the wall clock, stopped it


async def test_engine_memory_and_responsiveness_survive_bombs(run) -> None:
    engine = psutil.Process(os.getpid())
    before_bytes = engine.memory_info().rss
    limits = Limits(timeout_s=5.0, memory_bytes=64 * 1024 * 1024, output_bytes=4096)
    bombs = [
        run("python", body("x = []", "while True:", "    x.append('a' * 1000000)"), limits),
        run("python", body("while True:", "    print('x' * 1000)"), limits),
        run("python", body("return 'x' * 10000000"), limits),
    ]
    ticks = 0

    async def heartbeat() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    beating = asyncio.create_task(heartbeat(), name="heartbeat")
    outcomes = await asyncio.gather(*bombs)
    beating.cancel()
    assert [o.status for o in outcomes] == [
        OutcomeStatus.MEMORY, OutcomeStatus.OUTPUT_LIMIT, OutcomeStatus.OUTPUT_LIMIT,
    ]  # fmt: skip
    assert engine.memory_info().rss - before_bytes < 32 * 1024 * 1024
    assert ticks >= 3
