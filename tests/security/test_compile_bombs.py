"""Compile bombs at any nesting depth (issue 18, item 8), generated: for the wasm and
micropython runtimes, a script nested 1 to 60 000 levels deep (ifs, blocks, expressions,
brackets) ends `ok` or `rejected`, or `timeout`/`memory` with a message naming the cause,
never `error` or `crashed`, and within twice the limit of the run or the save that asked.
Through the sandbox's own entry, the one the engine calls (`runtime.run`, `runtime.validate`).
"""

from __future__ import annotations

import time

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from sandbox import Limits, OutcomeStatus, Sandbox, ScriptContext, ScriptRejected
from sandbox.memory_host import MemoryHost

pytestmark = pytest.mark.asyncio(loop_scope="module")

LIMITS = Limits(timeout_s=1.0, memory_bytes=64 * 1024 * 1024)
ALLOWED = {OutcomeStatus.OK, OutcomeStatus.REJECTED, OutcomeStatus.TIMEOUT, OutcomeStatus.MEMORY}
#: The words a message must hold for each status that is not the script's own success.
CAUSE = {
    OutcomeStatus.TIMEOUT: "limit",
    OutcomeStatus.MEMORY: "memory",
    OutcomeStatus.REJECTED: "",
}


def wasm_bomb(shape: str, depth: int) -> str:
    """A WAT module whose `main` nests `depth` levels of `shape`."""
    if shape == "if":
        inner = "(if (global.get $g) (then " * depth + "nop" + "))" * depth
        return f'(module (global $g (mut i32) (i32.const 0)) (func (export "main") {inner}))'
    if shape == "block":
        inner = "(block " * depth + "nop" + ")" * depth
        return f'(module (func (export "main") {inner}))'
    if shape == "expression":
        inner = "(i32.add (i32.const 1) " * depth + "(i32.const 1)" + ")" * depth
        return f'(module (func (export "main") (result i32) {inner}))'
    return '(module (func (export "main") ' + "(" * depth + ")" * depth + "))"


def micropython_bomb(shape: str, depth: int) -> str:
    """A script whose top level nests `depth` levels of `shape`, then a trivial `main`.
    Indented shapes stop at 1 500 levels: their source grows with the square of the depth,
    and is over the 1 MiB a script may have (rejected at once) from ~1 450 on."""
    if shape in ("if", "block"):
        depth = min(depth, 1_500)
    if shape == "if":
        top = "".join(" " * i + "if x:\n" for i in range(depth)) + " " * depth + "pass\n"
        top = "x = 0\n" + top
    elif shape == "block":
        top = "".join(" " * i + "while x:\n" for i in range(depth)) + " " * depth + "pass\n"
        top = "x = 0\n" + top
    elif shape == "expression":
        top = "x = " + "1 + (" * depth + "1" + ")" * depth + "\n"
    else:
        top = "x = " + "[" * depth + "]" * depth + "\n"
    return top + "def main(ctx):\n    return 1\n"


BOMBS = {"wasm": wasm_bomb, "micropython": micropython_bomb}
SHAPES = ("if", "block", "expression", "brackets")
#: Depths from 1 to 60 000, spread over the orders of magnitude.
DEPTHS = st.integers(0, 15).flatmap(lambda e: st.integers(2**e, min(60_000, 2 ** (e + 1))))


def assert_ends_well(status: OutcomeStatus, error: str | None, took_s: float) -> None:
    assert status in ALLOWED, (status, error)
    assert CAUSE.get(status, "") in (error or ""), (status, error)
    assert took_s < 2 * LIMITS.timeout_s, (took_s, status, error)


@settings(
    max_examples=24,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(runtime=st.sampled_from(sorted(BOMBS)), shape=st.sampled_from(SHAPES), depth=DEPTHS)
@example(runtime="wasm", shape="if", depth=60_000)  # the depth of the red team's bomb, tripled
@example(runtime="micropython", shape="expression", depth=60_000)
async def test_a_run_of_a_compile_bomb_ends_ok_or_with_its_cause_in_time(
    sandbox: Sandbox, context: ScriptContext, runtime: str, shape: str, depth: int
) -> None:
    script = BOMBS[runtime](shape, depth)
    started = time.monotonic()
    outcome = await sandbox.runtime(runtime).run(script, context, LIMITS, MemoryHost())
    assert_ends_well(outcome.status, outcome.error, time.monotonic() - started)


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(runtime=st.sampled_from(sorted(BOMBS)), shape=st.sampled_from(SHAPES), depth=DEPTHS)
async def test_saving_a_compile_bomb_is_accepted_or_refused_in_time(
    sandbox: Sandbox, runtime: str, shape: str, depth: int
) -> None:
    script = BOMBS[runtime](shape, depth)
    started = time.monotonic()
    try:
        await sandbox.runtime(runtime).validate(script, LIMITS)
    except ScriptRejected as exc:
        assert exc.reason, "a refusal names its cause"
    assert time.monotonic() - started < 2 * LIMITS.timeout_s
