"""The micropython runtime under attack: no files, no environment, no sockets, no sleeping past
the wall clock, and bombs end with their own status."""

from __future__ import annotations

import pytest
from support.sandbox_fixtures import CATCHING_CPU_LOOP, body

from sandbox import Limits, OutcomeStatus

pytestmark = pytest.mark.asyncio(loop_scope="module")

LIMITS = Limits(timeout_s=1.0, output_bytes=4096, result_bytes=1000, host_calls=50)


CASES = [
    ("open-file", body("return open('/etc/passwd').read()"), OutcomeStatus.ERROR),
    ("list-root", "import os\n" + body("return os.listdir('/')"), OutcomeStatus.ERROR),
    ("write-file", body("open('/tmp/x', 'w').write('x')"), OutcomeStatus.ERROR),
    ("socket", "import socket\n" + body("return 1"), OutcomeStatus.ERROR),
    ("sleep-past-deadline", "import time\n" + body("time.sleep(30)"), OutcomeStatus.ERROR),
    (
        "unknown-host-call",
        "import host\n" + body("return host.call('exec', '[]')"),
        OutcomeStatus.ERROR,
    ),
    ("cpu-loop", body("while True:", "    pass"), OutcomeStatus.TIMEOUT),
    (
        "cpu-loop-catching",
        CATCHING_CPU_LOOP,
        OutcomeStatus.TIMEOUT,
    ),
    ("huge-int", body("return 10 ** 10 ** 10"), OutcomeStatus.TIMEOUT),
    (
        "memory",
        body("x = []", "while True:", "    x.append(bytearray(1000000))"),
        OutcomeStatus.MEMORY,
    ),
    ("recursion", "def f(n):\n    return f(n + 1)\n" + body("return f(0)"), OutcomeStatus.ERROR),
    ("result-flood", body("return 'x' * 5000"), OutcomeStatus.OUTPUT_LIMIT),
    ("script-too-large", "def main(ctx):\n    return 1\n" + "#" * 60000, OutcomeStatus.REJECTED),
]


@pytest.mark.parametrize(("script", "status"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
async def test_micropython_attack_ends_with_exact_status(
    run, script: str, status: OutcomeStatus
) -> None:
    outcome = await run("micropython", script, LIMITS)
    assert outcome.status is status, (outcome.status, outcome.error, outcome.stderr)
    assert outcome.duration_s < LIMITS.timeout_s + 1.5  # generous: 2 shared cores


async def test_deeply_nested_source_exhausts_the_compiler_heap_and_is_rejected(run) -> None:
    """MicroPython's compiler is not recursive: 10 000 nested parentheses cost heap, not stack.
    The run gets a wall clock far above the ~1 s the compiler needs to exhaust its 1 MiB heap,
    so the outcome is decided by memory, never by how busy the machine is."""
    script = "def main(ctx):\n    return " + "(" * 10_000 + "1" + ")" * 10_000 + "\n"
    outcome = await run("micropython", script, Limits(timeout_s=20.0))
    assert outcome.status is OutcomeStatus.REJECTED, (outcome.status, outcome.error)
    assert "ran out of memory" in (outcome.error or "")


async def test_environment_is_empty(run) -> None:
    outcome = await run(
        "micropython", "import os\n" + body("return [os.getenv('HOME'), os.getenv('PATH')]"), LIMITS
    )
    assert outcome.status is OutcomeStatus.OK, outcome.error
    assert outcome.result == [None, None]
