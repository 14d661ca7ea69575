"""The micropython runtime keeps the python script contract inside wasmtime."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.sandbox_fixtures import body

from sandbox import Limits, OutcomeStatus, Sandbox, ScriptRejected
from sandbox.memory_host import MemoryHost
from sandbox.micropython.prelude import MODULE, MOUNT, REPORT_MODULE

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


async def test_large_host_answer_arrives_whole_as_one_host_call(run) -> None:
    """Answers start in a small buffer; a larger one is fetched again at its exact size."""
    value = {"rows": ["x" * 100] * 300}  # ~31 KiB of JSON
    host = MemoryHost({"big": value})
    outcome = await run(
        "micropython",
        body("v = ctx.kv.get('big')", "return [len(v['rows']), v['rows'][-1]]"),
        host=host,
    )
    assert outcome.status is OutcomeStatus.OK, outcome.error
    assert outcome.result == [300, "x" * 100]
    assert outcome.host_calls == 1


async def test_too_large_host_answer_still_fails_in_the_script(run) -> None:
    host = MemoryHost({"huge": "x" * (200 * 1024)})
    outcome = await run("micropython", body("return ctx.kv.get('huge')"), host=host)
    assert outcome.status is OutcomeStatus.ERROR
    assert "too large" in (outcome.error or "")


@pytest.mark.parametrize("module", ["host", "uctypes"])
async def test_the_raw_host_call_and_raw_memory_are_out_of_reach(run, module: str) -> None:
    """`host` (the raw host call) and `uctypes` (raw memory, where the prelude's token lives)
    find a stub; `micropython` keeps only `const`, so `heap_lock` cannot keep the prelude
    from reporting."""
    reached = []
    for name in (
        f"{module}.{'call' if module == 'host' else 'bytearray_at'}",
        "micropython.heap_lock",
    ):
        reached += ["try:", f"    reached.append(str({name}))", "except ImportError as exc:",
                    "    reached.append(str(exc))"]  # fmt: skip
    script = f"import {module}, micropython\n" + body(
        "reached = []", *reached, "return [reached, micropython.const(7)]"
    )
    outcome = await run("micropython", script)
    assert outcome.status is OutcomeStatus.OK, outcome.error
    refused = "this module is not available to scripts"
    assert outcome.result == [[refused, refused], 7]


async def test_the_prelude_image_is_mounted_read_only(run) -> None:
    """The image holds only the prelude's modules and cannot be written to."""
    script = "import os\n" + body(
        "try:",
        f"    open('{MOUNT}/x.py', 'w')",
        "    written = True",
        "except OSError:",
        "    written = False",
        f"return [sorted(os.listdir('{MOUNT}')), written]",
    )
    outcome = await run("micropython", script)
    assert outcome.status is OutcomeStatus.OK, outcome.error
    modules = sorted(f"{name}.mpy" for name in (MODULE, REPORT_MODULE))
    assert outcome.result == [modules, False]


async def test_no_state_survives_between_runs(run) -> None:
    """Each run starts from the booted interpreter: module state set by one run is gone in the
    next (the rewind is attacked harder in `tests/security/test_rewind_micropython.py`)."""
    script = "import sys, cadenza\n" + body(
        "seen = [getattr(cadenza, 'mark', None), sys.modules.get('leftover')]",
        "cadenza.mark = 'set'",
        "sys.modules['leftover'] = sys",
        "return [repr(x) for x in seen]",
    )
    first = await run("micropython", script)
    second = await run("micropython", script)
    assert first.status is OutcomeStatus.OK and second.status is OutcomeStatus.OK
    assert first.result == second.result == ["None", "None"]


async def test_ctx_attributes_come_from_the_context(run) -> None:
    outcome = await run(
        "micropython",
        body(
            "return [ctx.rule.id, ctx.rule.name, ctx.attempt, ctx.params, ctx.occurrence_id,",
            "        ctx.scheduled_at, hasattr(ctx, 'missing')]",
        ),
    )
    assert outcome.status is OutcomeStatus.OK, outcome.error
    assert outcome.result == [
        "r-1",
        "daily summary",
        1,
        {"threshold": 10},
        "occ-1",
        "2026-11-23T09:00:00+00:00",
        False,
    ]


@pytest.mark.parametrize("where", ["top-level", "main"])
async def test_a_trap_after_compiling_is_not_a_rejection(run, where: str) -> None:
    """The prelude marks the script compiled in guest memory; a trap after the mark (here the
    interpreter's own stack overflowing while comparing a deep structure) is the script's
    failure, not a compile error."""
    nest = ["x = []", "for i in range(20000):", "    x = [x]"]
    compare = "x == x[0]"
    script = (
        "\n".join([*nest, compare]) + "\n" + body("return 1")
        if where == "top-level"
        else body(*nest, f"return {compare}")
    )
    outcome = await run("micropython", script)
    assert outcome.status is OutcomeStatus.ERROR, (outcome.status, outcome.error)
    assert outcome.error == "stack overflow (recursion too deep)"


async def test_a_script_cannot_forge_the_preludes_report(run) -> None:
    """Only the prelude's `__end` carries the run's token: a script that reaches the prelude's
    module and calls the raw host call with a made-up report gets a refusal, and its own
    failure still ends the run as an error."""
    script = "import cadenza\n" + body(
        "answer = cadenza.send('__end', '0' * 16 + 'r' + '[1]')",
        "raise ValueError(answer)",
    )
    outcome = await run("micropython", script)
    assert outcome.status is OutcomeStatus.ERROR, (outcome.status, outcome.error)
    assert "only the prelude may end a run" in (outcome.error or "")


#: A script that computes until it is stopped, per runtime that has fuel.
BUSY = {
    "micropython": "def main(ctx):\n    while True:\n        pass\n",
    "wasm": '(module (func (export "main") (loop (br 0))))',
}


@settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(runtime=st.sampled_from(sorted(BUSY)), timeout_ms=st.integers(100, 700))
async def test_a_busy_loop_gets_its_whole_time_limit(run, runtime: str, timeout_ms: int) -> None:
    """Fuel is only a backstop: for any time limit, a script that computes until its limit is
    stopped by the clock, at the limit (within 2x of it), never earlier by running out of fuel
    on a fast machine (it was, at 0.46 s of 0.5 s, with the message blaming the CPU limit)."""
    limit_s = timeout_ms / 1000
    outcome = await run(runtime, BUSY[runtime], Limits(timeout_s=limit_s))
    assert outcome.status is OutcomeStatus.TIMEOUT
    assert "fuel" not in (outcome.error or ""), outcome.error
    assert limit_s <= outcome.duration_s <= 2 * limit_s + 1.0  # generous: 2 shared cores
