"""WebAssembly abuse: forbidden imports, memory and table bombs, loops, stack overflows,
malformed and disguised binaries, and hostile pointers handed to the `cadenza` ABI."""

from __future__ import annotations

import time

import pytest

from sandbox import Limits, OutcomeStatus

pytestmark = pytest.mark.asyncio(loop_scope="module")

LIMITS = Limits(timeout_s=1.0, memory_bytes=16 * 1024 * 1024, output_bytes=4096, host_calls=50)
PRINT = '(import "cadenza" "print" (func $print (param i32 i32) (result i32)))'
KV_GET = '(import "cadenza" "kv_get" (func $get (param i32 i32 i32 i32) (result i32)))'


def module(*items: str) -> str:
    return "(module " + " ".join(items) + ")"


MAIN_LOOP = '(func (export "main") (loop (br 0)))'

CASES = [
    (
        "import-wasi",
        module(
            '(import "wasi_snapshot_preview1" "proc_exit" (func (param i32)))',
            '(func (export "main"))',
        ),
        OutcomeStatus.REJECTED,
    ),
    (
        "import-env",
        module('(import "env" "abort" (func))', '(func (export "main"))'),
        OutcomeStatus.REJECTED,
    ),
    (
        "import-unknown-cadenza",
        module('(import "cadenza" "exec" (func (result i32)))', '(func (export "main"))'),
        OutcomeStatus.REJECTED,
    ),
    (
        "import-memory",
        module('(import "cadenza" "memory" (memory 1))', '(func (export "main"))'),
        OutcomeStatus.REJECTED,
    ),
    ("png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + b"\x00" * 100, OutcomeStatus.REJECTED),
    ("elf", b"\x7fELF\x02\x01\x01" + b"\x00" * 100, OutcomeStatus.REJECTED),
    ("truncated", b"\x00asm\x01\x00\x00\x00\x01\x05", OutcomeStatus.REJECTED),
    ("random-bytes", bytes(range(256)) * 4, OutcomeStatus.REJECTED),
    ("infinite-loop", module(MAIN_LOOP), OutcomeStatus.TIMEOUT),
    (
        "start-function-loop",
        module("(func $f (loop (br 0)))", "(start $f)", '(func (export "main"))'),
        OutcomeStatus.TIMEOUT,
    ),
    (
        "memory-grow-until-refused",
        module(
            '(memory (export "memory") 1)',
            '(func (export "main") (loop (br_if 0 (i32.ne (memory.grow (i32.const 16))'
            " (i32.const -1)))) unreachable)",
        ),
        OutcomeStatus.MEMORY,
    ),
    (
        "memory-grow-forever",
        module(
            '(memory (export "memory") 1)',
            '(func (export "main") (loop (drop (memory.grow (i32.const 1))) (br 0)))',
        ),
        OutcomeStatus.MEMORY,
    ),
    (
        "initial-memory-too-big",
        module('(memory (export "memory") 4096)', '(func (export "main"))'),
        OutcomeStatus.MEMORY,
    ),
    (
        "table-grow",
        module(
            "(table 1 funcref)",
            '(func (export "main") (loop (br_if 0 (i32.ne (table.grow (ref.null func)'
            " (i32.const 1000)) (i32.const -1)))))",
        ),
        OutcomeStatus.OK,
    ),
    (
        "stack-overflow",
        module("(func $f (call $f))", '(func (export "main") (call $f))'),
        OutcomeStatus.ERROR,
    ),
    ("unreachable", module('(func (export "main") unreachable)'), OutcomeStatus.ERROR),
    (
        "out-of-bounds-load",
        module("(memory 1)", '(func (export "main") (drop (i32.load (i32.const 1000000))))'),
        OutcomeStatus.ERROR,
    ),
    (
        "print-flood",
        module(
            PRINT,
            '(memory (export "memory") 1)',
            '(func (export "main") (loop (drop (call $print (i32.const 0) (i32.const 1000)))'
            " (br 0)))",
        ),
        OutcomeStatus.OUTPUT_LIMIT,
    ),
    (
        "host-call-flood",
        module(
            KV_GET,
            '(memory (export "memory") 1)',
            '(data (i32.const 0) "k")',
            '(func (export "main") (loop (drop (call $get (i32.const 0) (i32.const 1)'
            " (i32.const 16) (i32.const 16))) (br 0)))",
        ),
        OutcomeStatus.OUTPUT_LIMIT,
    ),
    (
        "hostile-pointer",
        module(
            KV_GET,
            '(memory (export "memory") 1)',
            '(func (export "main") (result i32) (call $get (i32.const -16) (i32.const 100000)'
            " (i32.const 65530) (i32.const 100)))",
        ),
        OutcomeStatus.OK,
    ),
    (
        "no-memory-export",
        module(
            KV_GET,
            '(func (export "main") (result i32) (call $get (i32.const 0) (i32.const 1)'
            " (i32.const 0) (i32.const 1)))",
        ),
        OutcomeStatus.ERROR,
    ),
]


@pytest.mark.parametrize(("wasm", "status"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
async def test_wasm_abuse_ends_with_exact_status(
    run, wasm: str | bytes, status: OutcomeStatus
) -> None:
    started = time.monotonic()
    outcome = await run("wasm", wasm, LIMITS)
    assert outcome.status is status, (outcome.status, outcome.error)
    assert time.monotonic() - started < 15  # a first compile check spawns a process
    if status is OutcomeStatus.OK:
        return
    assert outcome.error and outcome.result is None


async def test_hostile_pointers_are_refused_not_followed(run) -> None:
    wat = module(
        KV_GET,
        '(memory (export "memory") 1)',
        '(func (export "main") (result i32) (call $get (i32.const -16) (i32.const 100000)'
        " (i32.const 65530) (i32.const 100)))",
    )
    outcome = await run("wasm", wat, LIMITS)
    assert outcome.result == -2
    assert outcome.logs and outcome.logs[0].startswith("host call refused")


async def test_infinite_loop_stops_at_the_epoch_deadline(run) -> None:
    outcome = await run("wasm", module(MAIN_LOOP), Limits(timeout_s=0.5))
    assert outcome.status is OutcomeStatus.TIMEOUT
    assert 0.5 <= outcome.duration_s < 0.5 + 1.5  # generous: 2 shared cores; bench measures
