"""The engine's side of the worker boundary against a worker that is no longer ours.

A worker runs tenant code; if that code ever escaped, the worker's messages would be the
attacker's. Here the peer on a worker socket is a test thread speaking the protocol as an
attacker would: frames announced larger than allowed, more host calls than the run may make,
log lines past the budget, reports that lie. Each run ends with a status and a reason, quickly,
and the engine never reads or parses what it had no room for.
"""

from __future__ import annotations

import json
import os
import socket
import struct
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest

from sandbox import Limits, OutcomeStatus, RuntimeName, Sandbox
from sandbox.conversation import Conversation
from sandbox.framing import Kind, encode
from sandbox.handle import WorkerHandle
from sandbox.hostcalls import HostSession
from sandbox.job import CodeForm, Job, Mode
from sandbox.memory_host import MemoryHost
from sandbox.outcomes import Run

pytestmark = pytest.mark.asyncio(loop_scope="module")

LIMITS = Limits(timeout_s=5.0, host_calls=3, output_bytes=1000)
HEADER = struct.Struct(">IB")
Peer = Callable[[socket.socket], None]


def read_frame(sock: socket.socket) -> tuple[int, bytes]:
    size, kind = HEADER.unpack(sock.recv(HEADER.size, socket.MSG_WAITALL))
    return kind, sock.recv(size, socket.MSG_WAITALL) if size else b""


@contextmanager
def hostile_worker(peer: Peer) -> Iterator[WorkerHandle]:
    """A worker handle whose other end is `peer` (run on a thread), with a real process to
    kill through a pidfd."""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    process = subprocess.Popen(["sleep", "60"])
    thread = threading.Thread(target=peer, args=(theirs,), daemon=True)
    thread.start()
    handle = WorkerHandle(process.pid, ours, os.pidfd_open(process.pid))
    try:
        yield handle
    finally:
        handle.kill()
        handle.close()
        theirs.close()
        process.wait()


async def converse(sandbox: Sandbox, peer: Peer) -> tuple[float, object]:
    with hostile_worker(peer) as handle:
        run = Run(RuntimeName.PYTHON, LIMITS)
        job = Job(RuntimeName.PYTHON, Mode.RUN, "key", CodeForm.HELD, LIMITS, {})
        started = time.monotonic()
        assert sandbox._pool is not None
        conversation = Conversation(
            sandbox._pool, handle, run, HostSession(MemoryHost(), LIMITS), None
        )
        outcome = await conversation.converse(job, None, 0.0)
        return time.monotonic() - started, outcome


def after_job(*frames: bytes, hold_s: float = 10.0) -> Peer:
    """A peer that reads the job, sends `frames`, and then keeps the socket open."""

    def peer(sock: socket.socket) -> None:
        try:
            read_frame(sock)
            for frame in frames:
                sock.sendall(frame)
                if frame[4] == Kind.CALL:
                    read_frame(sock)
        except (OSError, struct.error):  # the engine hung up on us
            return
        time.sleep(hold_s)

    return peer


async def test_a_frame_announced_too_large_ends_the_run_before_its_body_is_read(sandbox) -> None:
    peer = after_job(HEADER.pack(16 * 1024 * 1024, Kind.CALL))  # the header alone
    took_s, outcome = await converse(sandbox, peer)
    assert outcome.status is OutcomeStatus.ERROR
    assert "broke the protocol" in outcome.error
    assert took_s < LIMITS.timeout_s / 2  # it never waited for a body


async def test_host_calls_past_the_count_end_the_run_before_they_are_parsed(sandbox) -> None:
    call = encode(Kind.CALL, {"op": "kv_get", "args": ["k"]})
    garbage = HEADER.pack(5, Kind.CALL) + b"{{{{{"  # not JSON: parsing it would fail the run
    took_s, outcome = await converse(sandbox, after_job(call, call, call, garbage))
    assert outcome.status is OutcomeStatus.OUTPUT_LIMIT, outcome.error
    assert outcome.error == "made more than 3 host calls (kv/emit) in one run"
    assert outcome.host_calls == 3 and took_s < LIMITS.timeout_s / 2


async def test_a_log_line_past_the_budget_ends_the_run_before_it_is_decoded(sandbox) -> None:
    line = HEADER.pack(LIMITS.output_bytes, Kind.LOG) + b"\xff" * LIMITS.output_bytes
    _, outcome = await converse(sandbox, after_job(line))
    assert outcome.status is OutcomeStatus.OUTPUT_LIMIT
    assert outcome.logs == ()


@pytest.mark.parametrize(
    "report",
    [
        {"status": "crashed"},
        {"status": "ok", "result_json": "not json"},
        {"status": "ok", "result_json": "[" * 100_000 + "]" * 100_000},
        {"status": "ok", "result_json": "NaN"},
        {"status": "error", "cpu_s": "a lot"},
        {"status": "ok", "line": True},
        [1, 2],
    ],
    ids=[
        "forged-crash",
        "result-not-json",
        "nested-result",
        "nan",
        "cpu-text",
        "line-bool",
        "list",
    ],
)
async def test_a_lying_report_ends_the_run_with_the_reason_never_an_engine_error(
    sandbox, report
) -> None:
    done = encode(Kind.DONE, json.dumps(report).encode())
    _, outcome = await converse(sandbox, after_job(done))
    assert outcome.status is OutcomeStatus.ERROR
    assert outcome.error.startswith("the worker broke the protocol")


async def test_an_artifact_nobody_asked_for_breaks_the_protocol(sandbox) -> None:
    _, outcome = await converse(sandbox, after_job(encode(Kind.ARTIFACT, b"\x00" * 64)))
    assert outcome.status is OutcomeStatus.ERROR and "ARTIFACT" in outcome.error


async def test_one_tenants_compiled_code_never_reaches_another_tenants_worker(run, sandbox) -> None:
    """Code a worker compiled comes from a process that ran tenant code: it is kept for that
    tenant only. Here tenant A's artifact is replaced by garbage (as a compromised worker of A
    could make it); tenant B's run of the same script compiles its own and succeeds, and A's
    next new worker fails to load it as an error of A's own run, not a crash."""
    script = "def main(ctx):\n    return 'compiled for me'\n"
    first = await run("python", script, tenant_id="t-artifact-a")
    assert first.status is OutcomeStatus.OK
    runtime = sandbox.runtime("python")
    key, _ = runtime.code(script)
    runtime._artifacts.put("t-artifact-a", key, b"\x00poisoned")
    other = await run("python", script, tenant_id="t-artifact-b")
    assert other.status is OutcomeStatus.OK and other.result == "compiled for me"
    assert other.pid != first.pid
    limits = Limits(memory_bytes=96 * 1024 * 1024)
    fresh = await run("python", script, limits, tenant_id="t-artifact-a")
    assert fresh.status is OutcomeStatus.ERROR, fresh.error
    assert "could not load" in fresh.error
