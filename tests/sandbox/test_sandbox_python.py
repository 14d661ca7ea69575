"""The python runtime end to end: real zygote, real confined workers, MemoryHost."""

from __future__ import annotations

import pytest
from support.sandbox_fixtures import body

from sandbox import Limits, OutcomeStatus, Sandbox, ScriptRejected
from sandbox.memory_host import MemoryHost

pytestmark = pytest.mark.asyncio(loop_scope="module")

DAILY = """
import json
def main(ctx):
    seen = ctx.kv.get("seen", 0) + 1
    ctx.kv.set("seen", seen)
    print("run", seen, "for", ctx.rule.name)
    ctx.emit("email", {"to": "ops@example.com", "count": seen})
    ctx.log("threshold is", ctx.params["threshold"])
    return {"seen": seen, "at": ctx.scheduled_at, "keys": ctx.kv.keys("se")}
"""


async def test_script_reads_and_writes_kv_emits_logs_and_returns(run) -> None:
    host = MemoryHost({"seen": 41})
    outcome = await run("python", DAILY, host=host)
    assert outcome.status is OutcomeStatus.OK, outcome.error
    assert outcome.result == {"seen": 42, "at": "2026-11-23T09:00:00+00:00", "keys": ["seen"]}
    assert outcome.stdout == "run 42 for daily summary\n"
    assert [(e.type, e.payload) for e in outcome.events] == [
        ("email", {"to": "ops@example.com", "count": 42})
    ]
    assert outcome.logs == ("threshold is 10",)
    assert host.kv == {"seen": 42}
    assert outcome.host_calls == 4 and outcome.pid and outcome.cpu_s is not None


async def test_exception_is_an_error_outcome_with_its_line(run) -> None:
    outcome = await run("python", "def main(ctx):\n    x = 0\n    return 1 / x\n")
    assert outcome.status is OutcomeStatus.ERROR
    assert outcome.error_line == 3
    assert outcome.error == "line 3: ZeroDivisionError: division by zero"


@pytest.mark.parametrize(
    ("script", "line", "reason"),
    [
        ("def main(ctx):\n    return (\n", 2, "never closed"),
        ("x = 1\n", None, "must define a top-level function main(ctx)"),
        ("def main(a, b):\n    return 1\n", 1, "exactly one argument"),
        ("def main(ctx):\n    return ctx.__class__\n", 2, "starts with"),
        (b"def main(ctx):\n    return '\xff'\n", 2, "not UTF-8"),
        ("#" * (11 * 1024 * 1024), None, "limit is"),
    ],
    ids=["syntax", "no-main", "arity", "underscore", "not-utf8", "10mb"],
)
async def test_validate_rejects_with_line_and_reason(
    sandbox: Sandbox, run, script: str | bytes, line: int | None, reason: str
) -> None:
    with pytest.raises(ScriptRejected) as caught:
        await sandbox.runtime("python").validate(script)
    assert caught.value.line == line
    assert reason in caught.value.reason
    outcome = await run("python", script)
    assert outcome.status is OutcomeStatus.REJECTED and reason in (outcome.error or "")


@pytest.mark.parametrize(
    ("script", "message"),
    [
        ("def main(ctx):\n    return {1, 2}\n", "main() returned a set"),
        ("import datetime\ndef main(ctx):\n    return datetime.date.today()\n", "returned a date"),
        ("def main(ctx):\n    return float('nan')\n", "not JSON"),
    ],
    ids=["set", "date", "nan"],
)
async def test_non_json_result_is_an_error(run, script: str, message: str) -> None:
    outcome = await run("python", script)
    assert outcome.status is OutcomeStatus.ERROR
    assert message in (outcome.error or "")


async def test_result_over_its_limit_is_output_limit(run) -> None:
    outcome = await run(
        "python", "def main(ctx):\n    return 'x' * 5000\n", Limits(result_bytes=1000)
    )
    assert outcome.status is OutcomeStatus.OUTPUT_LIMIT
    assert "limit 1000 bytes" in (outcome.error or "")


async def test_print_flood_is_capped_and_marked(run) -> None:
    script = "def main(ctx):\n    while True:\n        print('spam' * 100)\n"
    outcome = await run("python", script, Limits(output_bytes=2000))
    assert outcome.status is OutcomeStatus.OUTPUT_LIMIT
    assert outcome.output_truncated
    assert outcome.stdout.endswith("[output truncated at 2000 bytes]")
    assert len(outcome.stdout.encode()) < 2100


async def test_host_calls_are_counted_against_the_limit(run) -> None:
    script = "def main(ctx):\n    for i in range(100):\n        ctx.kv.get('k')\n"
    outcome = await run("python", script, Limits(host_calls=10))
    assert outcome.status is OutcomeStatus.OUTPUT_LIMIT
    assert "more than 10 host calls" in (outcome.error or "")


async def test_bad_host_call_arguments_reach_the_script_as_errors(run) -> None:
    script = "def main(ctx):\n    ctx.kv.set('k' * 1000, 1)\n"
    outcome = await run("python", script, Limits(key_bytes=100))
    assert outcome.status is OutcomeStatus.ERROR
    assert "HostError: kv key must be 1..100 bytes" in (outcome.error or "")


async def test_compiled_code_is_cached_by_content(sandbox: Sandbox, run) -> None:
    script = "def main(ctx):\n    return 'cached'\n"
    await sandbox.runtime("python").validate(script)
    outcomes = [await run("python", script, tenant_id=f"t-cache-{i}") for i in range(3)]
    assert {o.result for o in outcomes} == {"cached"}
    assert len({o.pid for o in outcomes}) == 3  # three tenants: three workers, one compile


class _StrictStore(MemoryHost):
    """A host whose store refuses keys with line breaks, as the engine's kv does."""

    async def kv_set(self, key: str, value: object) -> None:
        if "\n" in key:
            raise ValueError(f"kv key {key!r} is not valid: use printable characters")
        await super().kv_set(key, value)


async def test_a_host_refusal_is_an_error_the_script_can_catch(run) -> None:
    script = body(
        "try:",
        "    ctx.kv.set('bad\\nkey', 1)",
        "except Exception as exc:",
        "    ctx.kv.set('refused', str(exc))",
        "return 'went on'",
    )
    host = _StrictStore()
    outcome = await run("python", script, host=host)
    assert outcome.status is OutcomeStatus.OK, outcome.error
    assert outcome.result == "went on"
    assert host.kv["refused"] == "kv key 'bad\\nkey' is not valid: use printable characters"
    assert "bad\nkey" not in host.kv


@pytest.mark.parametrize(
    ("stall", "status"),
    [
        ("while True:\n        pass", OutcomeStatus.TIMEOUT),
        ("x = 10 ** 10 ** 10", OutcomeStatus.TIMEOUT),  # one C call: no bytecode boundary
    ],
    ids=["loop", "huge-int"],
)
async def test_a_run_stopped_from_outside_keeps_what_it_printed(
    run, stall: str, status: OutcomeStatus
) -> None:
    script = body("print('got this far', 'ü ✓')", stall)
    outcome = await run("python", script, limits=Limits(timeout_s=0.5))
    assert outcome.status is status, outcome.error
    assert outcome.stdout == "got this far ü ✓\n"


async def test_a_stopped_run_shows_only_its_own_output(run) -> None:
    """The same warm worker's earlier run printed more; the stopped run shows its own."""
    earlier = await run("python", body("print('earlier run ' * 20)", "return 1"))
    assert earlier.status is OutcomeStatus.OK
    stalled = body("print('mine')", "while True:", "    pass")
    outcome = await run("python", stalled, limits=Limits(timeout_s=0.5))
    assert outcome.status is OutcomeStatus.TIMEOUT
    assert outcome.pid == earlier.pid, "the same warm worker served both runs"
    assert outcome.stdout == "mine\n"
