"""The micropython runtime keeps the python script contract inside wasmtime."""

from __future__ import annotations

import pytest

from sandbox import Limits, OutcomeStatus, Sandbox, ScriptRejected
from sandbox.memory_host import MemoryHost

pytestmark = pytest.mark.asyncio(loop_scope="module")

REMINDER = """
def main(ctx):
    sent = ctx.kv.get("sent", [])
    sent.append(ctx.scheduled_at)
    ctx.kv.set("sent", sent)
    ctx.emit("email", {"to": ctx.params["to"], "subject": "reminder"})
    ctx.log("reminded", len(sent))
    print("attempt", ctx.attempt, ctx.rule.name)
    return {"sent": len(sent), "keys": ctx.kv.keys()}
"""


async def test_same_contract_as_python(run, context) -> None:
    host = MemoryHost({"sent": ["earlier"]})
    outcome = await run(
        "micropython", REMINDER.replace('ctx.params["to"]', '"a@example.com"'), host=host
    )
    assert outcome.status is OutcomeStatus.OK, (outcome.error, outcome.stderr)
    assert outcome.result == {"sent": 2, "keys": ["sent"]}
    assert host.kv == {"sent": ["earlier", "2026-11-23T09:00:00+00:00"]}
    assert [(e.type, e.payload) for e in outcome.events] == [
        ("email", {"to": "a@example.com", "subject": "reminder"})
    ]
    assert outcome.logs == ("reminded 2",)
    assert outcome.stdout == "attempt 1 daily summary\n"


async def test_errors_carry_their_line(run) -> None:
    outcome = await run("micropython", "def main(ctx):\n    x = 0\n    return 1 // x\n")
    assert outcome.status is OutcomeStatus.ERROR
    assert outcome.error_line == 3 and "ZeroDivisionError" in (outcome.error or "")


async def test_validate_rejects_syntax_and_missing_main(sandbox: Sandbox) -> None:
    runtime = sandbox.runtime("micropython")
    with pytest.raises(ScriptRejected, match="SyntaxError") as caught:
        await runtime.validate("def main(ctx)\n    return 1\n")
    assert caught.value.line == 1
    with pytest.raises(ScriptRejected, match="main"):
        await runtime.validate("x = 1\n")
    await runtime.validate("def main(ctx):\n    return 1\n")


@pytest.mark.parametrize(
    ("script", "status"),
    [
        ("def main(ctx):\n    while True:\n        pass\n", OutcomeStatus.TIMEOUT),
        (
            "def main(ctx):\n    x = []\n    while True:\n        x.append('a' * 100000)\n",
            OutcomeStatus.MEMORY,
        ),
        (
            "def main(ctx):\n    while True:\n        print('flood' * 100)\n",
            OutcomeStatus.OUTPUT_LIMIT,
        ),
        ("import time\ndef main(ctx):\n    time.sleep(30)\n", OutcomeStatus.ERROR),
        ("def main(ctx):\n    return {1, 2}\n", OutcomeStatus.ERROR),
        (
            "def main(ctx):\n    for i in range(50):\n        ctx.kv.get('k')\n",
            OutcomeStatus.OUTPUT_LIMIT,
        ),
    ],
    ids=["cpu", "memory", "flood", "sleep", "set", "host-calls"],
)
async def test_limits_end_runs_with_their_status(run, script: str, status: OutcomeStatus) -> None:
    limits = Limits(timeout_s=0.5, memory_bytes=32 * 1024 * 1024, output_bytes=4096, host_calls=20)
    outcome = await run("micropython", script, limits)
    assert outcome.status is status, (outcome.error, outcome.stderr)
    assert outcome.duration_s < 0.5 + 1.5  # generous: 2 shared cores
