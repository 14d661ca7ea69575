"""The wasm runtime: the `cadenza` ABI, limits, and module validation."""

from __future__ import annotations

import math
import time
from pathlib import Path

import pytest
import wasmtime

from sandbox import Limits, OutcomeStatus, Sandbox, ScriptRejected
from sandbox.memory_host import MemoryHost
from sandbox.wasm.engine import engine_config

#: The longest a runtime that stops itself is given to report after its deadline.
GRACE_S = 0.25

pytestmark = pytest.mark.asyncio(loop_scope="module")

EXAMPLE = Path(__file__).resolve().parents[2] / "sandbox" / "examples" / "threshold_alert.wat"

KV_ROUND_TRIP = """
(module
  (import "cadenza" "kv_set" (func $set (param i32 i32 i32 i32) (result i32)))
  (import "cadenza" "kv_get" (func $get (param i32 i32 i32 i32) (result i32)))
  (import "cadenza" "context" (func $context (param i32 i32) (result i32)))
  (import "cadenza" "log" (func $log (param i32 i32) (result i32)))
  (import "cadenza" "result" (func $result (param i32 i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 0) "k")
  (data (i32.const 8) "[1,2]")
  (func (export "main")
    (local $n i32)
    (drop (call $set (i32.const 0) (i32.const 1) (i32.const 8) (i32.const 5)))
    (local.set $n (call $context (i32.const 1024) (i32.const 4096)))
    (drop (call $log (i32.const 1024) (local.get $n)))
    (local.set $n (call $get (i32.const 0) (i32.const 1) (i32.const 512) (i32.const 64)))
    (drop (call $result (i32.const 512) (local.get $n)))))
"""


async def test_example_module_alerts_over_threshold(run) -> None:
    host = MemoryHost({"errors": 12})
    outcome = await run("wasm", EXAMPLE.read_bytes(), host=host)
    assert outcome.status is OutcomeStatus.OK, outcome.error
    assert outcome.result == {"alerted": True}
    assert outcome.stdout == "checked errors\n"
    assert [(e.type, e.payload) for e in outcome.events] == [
        ("alert", {"message": "too many errors"})
    ]
    quiet = await run("wasm", EXAMPLE.read_bytes(), host=MemoryHost({"errors": 3}))
    assert quiet.result == {"alerted": False} and quiet.events == ()


async def test_kv_context_log_and_result_cross_the_abi(run) -> None:
    host = MemoryHost()
    outcome = await run("wasm", KV_ROUND_TRIP, host=host)
    assert outcome.status is OutcomeStatus.OK, outcome.error
    assert outcome.result == [1, 2]
    assert host.kv == {"k": [1, 2]}
    assert '"occurrence_id":"occ-1"' in outcome.logs[0]
    assert outcome.fuel and outcome.fuel > 0


async def test_main_returning_i32_is_the_result(run) -> None:
    wat = '(module (func (export "main") (result i32) i32.const 42))'
    outcome = await run("wasm", wat)
    assert outcome.status is OutcomeStatus.OK and outcome.result == 42


@pytest.mark.parametrize(
    ("module", "reason"),
    [
        (b"\x89PNG\r\n\x1a\n" + b"\x00" * 64, "PNG image"),
        (b"\x00asm\x01\x00\x00\x00\xff\xff", "invalid WebAssembly"),
        ('(module (func (export "main")', "WAT does not parse"),
        (
            '(module (import "wasi_snapshot_preview1" "fd_write" (func (param i32 i32 i32 i32)'
            ' (result i32))) (func (export "main")))',
            "only the 'cadenza' functions",
        ),
        (
            '(module (import "cadenza" "log" (func (param i32) (result i32))) (func'
            ' (export "main")))',
            "wrong signature",
        ),
        ('(module (func (export "start")))', "must export a function 'main'"),
        (b"\x00asm" + b"\x00" * (5 * 1024 * 1024), "the limit is"),
    ],
    ids=["png", "malformed", "bad-wat", "wasi-import", "bad-signature", "no-main", "too-big"],
)
async def test_bad_modules_are_rejected_before_running(
    sandbox: Sandbox, run, module: str | bytes, reason: str
) -> None:
    with pytest.raises(ScriptRejected, match=reason):
        await sandbox.runtime("wasm").validate(module)
    outcome = await run("wasm", module)
    assert outcome.status is OutcomeStatus.REJECTED
    assert reason in (outcome.error or "")


async def test_print_is_capped_as_it_is_written(run) -> None:
    wat = """(module (import "cadenza" "print" (func $p (param i32 i32) (result i32)))
      (memory (export "memory") 1) (data (i32.const 0) "0123456789")
      (func (export "main") (loop (drop (call $p (i32.const 0) (i32.const 10))) (br 0))))"""
    outcome = await run("wasm", wat, Limits(output_bytes=95))
    assert outcome.status is OutcomeStatus.OUTPUT_LIMIT
    assert outcome.stdout.startswith("0123456789" * 9 + "01234\n[output truncated")


def _slow_to_compile(functions: int) -> str:
    """A module of `functions` small functions whose main grows its memory forever."""
    body = "local.get 0 i32.const 7 i32.add i32.const 3 i32.mul"
    funcs = "".join(f"(func (param i32) (result i32) {body})" for _ in range(functions))
    main = '(func (export "main") (loop (drop (memory.grow (i32.const 1))) (br 0)))'
    return f'(module (memory (export "memory") 1) {funcs} {main})'


async def test_a_run_that_compiles_slowly_still_ends_with_its_own_status(run) -> None:
    """A run's time limit counts from when its job arrives, its module's compile included,
    as the engine's clock does: a worker that counted from after the compile overran the
    engine's deadline by the compile's time, was killed, and the run ended `timeout` instead
    of the status the worker would have reported (here `memory`: it asked past its limit)."""
    engine = wasmtime.Engine(engine_config(for_tenants=True))
    module, took_s = _slow_to_compile(500), 0.0
    while took_s < 2 * GRACE_S:  # longer than the grace a runtime has to report
        module = _slow_to_compile(2 * module.count("(func"))
        started = time.monotonic()
        wasmtime.Module(engine, module)
        took_s = time.monotonic() - started
    # A quarter past a whole second: the CPU limit (the run's, rounded up to a whole second
    # of the worker's life) then comes well after the wall-clock deadline for this busy loop.
    timeout_s = max(2.25, math.ceil(2.5 * took_s) + 0.25)
    limits = Limits(timeout_s=timeout_s, memory_bytes=16 * 1024 * 1024)
    started = time.monotonic()
    outcome = await run("wasm", module, limits, tenant_id="t-slow-compile")
    assert outcome.status is OutcomeStatus.MEMORY, (outcome.status, outcome.error)
    assert time.monotonic() - started < 2 * limits.timeout_s
