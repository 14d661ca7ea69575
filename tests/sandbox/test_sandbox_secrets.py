"""`ctx.secrets.get(name)` in every runtime: the host answers by name, refuses bad names, and a
missing secret is None (the wasm ABI: -1)."""

from __future__ import annotations

import pytest
from support.sandbox_fixtures import body

from sandbox import Limits, OutcomeStatus
from sandbox.memory_host import MemoryHost

pytestmark = pytest.mark.asyncio(loop_scope="module")

SECRETS = {"stripe": "sk_live_abc123XYZ", "slack.hook": "https://hooks.slack.test/T1/B2"}

SCRIPT = body(
    "found = ctx.secrets.get('stripe')",
    "missing = ctx.secrets.get('nope', 'fallback')",
    "try:",
    "    ctx.secrets.get('')",
    "    refused = None",
    "except HostError as exc:",
    "    refused = str(exc)",
    "return [found, ctx.secrets.get('slack.hook'), missing, refused]",
)

WAT = """
(module
  (import "cadenza" "secret_get" (func $secret (param i32 i32 i32 i32) (result i32)))
  (import "cadenza" "result" (func $result (param i32 i32) (result i32)))
  (import "cadenza" "log" (func $log (param i32 i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 0) "stripe")
  (data (i32.const 16) "nope")
  (data (i32.const 32) "missing")
  (func (export "main")
    (local $n i32)
    (if (i32.eq (call $secret (i32.const 16) (i32.const 4) (i32.const 512) (i32.const 64))
                (i32.const -1))
      (then (drop (call $log (i32.const 32) (i32.const 7)))))
    (local.set $n (call $secret (i32.const 0) (i32.const 6) (i32.const 512) (i32.const 64)))
    (drop (call $result (i32.const 512) (local.get $n)))))
"""


@pytest.mark.parametrize("runtime", ["python", "micropython"])
async def test_a_script_reads_its_secrets_by_name(run, runtime: str) -> None:
    outcome = await run(runtime, SCRIPT, host=MemoryHost(secrets=SECRETS))
    assert outcome.status is OutcomeStatus.OK, outcome.error
    found, hook, missing, refused = outcome.result
    assert [found, hook, missing] == [SECRETS["stripe"], SECRETS["slack.hook"], "fallback"]
    assert refused is not None and "secret name" in refused


async def test_a_wasm_module_reads_a_secret_as_json_text(run) -> None:
    outcome = await run("wasm", WAT, host=MemoryHost(secrets=SECRETS))
    assert outcome.status is OutcomeStatus.OK, outcome.error
    assert outcome.result == SECRETS["stripe"]
    assert outcome.logs == ("missing",)


@pytest.mark.parametrize("runtime", ["python", "micropython"])
async def test_secret_calls_count_against_the_host_call_budget(run, runtime: str) -> None:
    script = body("while True:", "    ctx.secrets.get('stripe')")
    outcome = await run(
        runtime, script, limits=Limits(host_calls=20), host=MemoryHost(secrets=SECRETS)
    )
    assert outcome.status is OutcomeStatus.OUTPUT_LIMIT
    assert outcome.host_calls <= 21
