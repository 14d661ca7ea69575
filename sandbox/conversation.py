"""One job's conversation with a worker, seen from the engine, for every runtime.

Send the job (and its code), answer the worker's host calls, take its log lines and the code
it compiled, read its report. Everything the worker sends is bounded before it is parsed:
each frame's length against its kind's limit (`frame_limits`), a host call against the run's
remaining count and a log line against its remaining budget. The wall clock is enforced here,
from outside the worker (SIGKILL through a pidfd), so nothing inside can outlast it: the
python runtime has no other clock, the wasm runtimes interrupt themselves at the deadline and
are given a short grace to report. A worker that dies, or misbehaves, becomes an outcome,
never an engine error.
"""

from __future__ import annotations

import asyncio
import signal
import time
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any

from sandbox import framing, report
from sandbox.contract import Limits, Outcome, OutcomeStatus
from sandbox.framing import Kind
from sandbox.handle import WorkerHandle
from sandbox.hostcalls import HostCallRefused, HostLimitReached, HostSession, call_frame_bytes
from sandbox.job import Job, Mode
from sandbox.outcomes import Run
from sandbox.pool import WorkerPool
from sandbox.source import describe_seconds

#: Compiled code a worker may hand back (python bytecode, a serialised wasm module).
MAX_ARTIFACT_BYTES = 64 * 1024 * 1024
_REPORT_SPARE_BYTES = 64 * 1024
#: Signals with which a process dies by its own fault: its script crashed the interpreter.
_FAULTS = frozenset({signal.SIGSEGV, signal.SIGBUS, signal.SIGILL, signal.SIGFPE, signal.SIGABRT})
ArtifactSink = Callable[[bytes], None]


@lru_cache(maxsize=256)
def frame_limits(limits: Limits, has_host: bool, takes_artifact: bool) -> Mapping[Kind, int]:
    """What a worker may send during one job, and how long each frame may be (the same for
    every run under the same limits, so worked out once)."""
    found = {Kind.DONE: 6 * (limits.output_bytes + limits.result_bytes) + _REPORT_SPARE_BYTES}
    if has_host:
        found[Kind.CALL] = call_frame_bytes(limits)
        found[Kind.LOG] = limits.output_bytes
    if takes_artifact:
        found[Kind.ARTIFACT] = MAX_ARTIFACT_BYTES
    return found


class Conversation:
    """One job with one worker; `grace_s` is how long after the deadline a runtime that stops
    itself at it is given to report."""

    def __init__(
        self,
        pool: WorkerPool,
        handle: WorkerHandle,
        run: Run,
        session: HostSession | None,
        on_artifact: ArtifactSink | None,
    ) -> None:
        self._pool, self._handle, self._run, self._session = pool, handle, run, session
        self._on_artifact = on_artifact
        self.has_artifact = False

    async def converse(self, job: Job, blob: bytes | None, grace_s: float) -> Outcome:
        run, handle, session = self._run, self._handle, self._session
        limits = run.limits
        channel = handle.channel()
        channel.begin(frame_limits(limits, session is not None, self._on_artifact is not None))
        run.pid = handle.pid
        run.started_s = time.monotonic()  # the clock starts with the worker, as the limit does
        if session is not None:
            session.begin()
        try:
            async with asyncio.timeout(limits.timeout_s + grace_s):
                await channel.send(Kind.JOB, job.encode())
                if blob is not None:
                    await channel.send(Kind.BLOB, blob)
                while not await self._take(*await channel.read()):
                    pass
            return run.outcome(session)
        except TimeoutError:
            return self._overtime(job)
        except HostLimitReached as exc:
            handle.kill()
            run.set_output(handle.printed(limits.output_bytes), truncated=False)
            return run.ended(exc.status, str(exc), session)
        except framing.FrameError as exc:
            handle.kill()
            return run.ended(OutcomeStatus.ERROR, f"the worker broke the protocol: {exc}", session)
        except (EOFError, ConnectionError):
            return await self._died(job)

    async def _take(self, kind: Kind, body: bytes) -> bool:
        """Act on one frame; True once the worker has reported."""
        if kind is Kind.DONE:
            self._run.report(report.parse(framing.loads(body)))
            return True
        if kind is Kind.ARTIFACT and self._on_artifact is not None and not self.has_artifact:
            self.has_artifact = True
            self._on_artifact(body)
            return False
        session = self._session
        if session is None:
            raise framing.FrameError(f"a {kind.name} frame in a job without a host")
        if kind is Kind.LOG:
            session.check_log(len(body) + 1)  # before it is even decoded
            session.log(body.decode("utf-8", "replace"))
            return False
        if kind is Kind.CALL:
            session.check_call()  # before it is parsed
            await self._handle.channel().send(Kind.REPLY, await _answer(session, body))
            return False
        raise framing.FrameError(f"an unexpected {kind.name} frame")

    @property
    def _compiling(self) -> bool:
        """Whether the worker is still compiling the script (it has not handed back its code)."""
        return self._on_artifact is not None and not self.has_artifact

    def _overtime(self, job: Job) -> Outcome:
        run, handle = self._run, self._handle
        handle.kill()
        run.set_output(handle.printed(run.limits.output_bytes), truncated=False)
        if self._compiling:
            limit = describe_seconds(run.limits.timeout_s)
            reason = f"compiling the script took longer than the run's limit of {limit}"
            return run.ended(OutcomeStatus.REJECTED, reason, self._session)
        return run.timed_out(self._session)

    async def _died(self, job: Job) -> Outcome:
        run, session = self._run, self._session
        if self._pool.is_stopping:
            return run.ended(OutcomeStatus.KILLED, "stopped: the sandbox shut down", session)
        run.set_output(self._handle.printed(run.limits.output_bytes), truncated=False)
        ended = await self._pool.exit_report(self._handle, 2.0) or {}
        cpu_s = ended.get("cpu_s")  # the worker's whole life: count only this run
        run.cpu_s = None if cpu_s is None else max(0.0, cpu_s - self._handle.cpu_used_s)
        run.peak_memory_bytes = ended.get("peak_memory_bytes")
        status, error = _death(ended, run.limits, job.mode, self._compiling)
        if status is OutcomeStatus.CRASHED:
            self._pool.counts.crashed += 1
        return run.ended(status, error, session)


def _death(
    ended: dict[str, Any], limits: Limits, mode: Mode, compiling: bool
) -> tuple[OutcomeStatus, str]:
    """Why a worker died without reporting: its CPU limit, a fault its script caused (a C
    stack overflow through nested generators, say, or a compiler overflowing its stack on
    a module nested thousands deep: neither worth retrying), or something else."""
    number = ended.get("signal")
    if number == signal.SIGXCPU:
        return (
            OutcomeStatus.TIMEOUT,
            f"used more than {describe_seconds(limits.effective_cpu_s)} of CPU time",
        )
    if number in _FAULTS:
        name = signal.Signals(number).name
        if compiling:
            return OutcomeStatus.REJECTED, (
                f"compiling the script crashed the compiler ({name}): usually code nested too"
                " deep, such as thousands of blocks inside one another"
            )
        status = OutcomeStatus.REJECTED if mode is Mode.CHECK else OutcomeStatus.ERROR
        return status, (
            f"the script crashed its interpreter ({name}): usually recursion too deep for the"
            " native stack, such as a long chain of nested generators or iterators"
        )
    name = signal.Signals(number).name if number else f"exit code {ended.get('code')}"
    return OutcomeStatus.CRASHED, f"the worker died without reporting ({name})"


async def _answer(session: HostSession, body: bytes) -> dict[str, Any]:
    message = framing.loads(body)
    if not isinstance(message, dict):
        raise framing.FrameError("a host call must be a JSON object")
    try:
        value = await session.call(message.get("op"), message.get("args"))
        framing.dumps(value)
    except HostCallRefused as exc:
        return {"error": str(exc)}
    except (TypeError, ValueError) as exc:
        return {"error": f"the stored value is not JSON: {exc}"}
    return {"value": value}
