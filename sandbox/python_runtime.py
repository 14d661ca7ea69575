"""The `python` runtime: RestrictedPython in a confined worker process that serves one tenant.

The engine side of one run is a short conversation with a worker from the pool (warm and bound
to this tenant and memory limit, or freshly forked; see `sandbox.warm`): send the job, answer
host calls, read the report. The wall clock is enforced here, from outside the
worker (SIGKILL through a pidfd), so nothing inside can outlast it; a worker that dies
without reporting becomes an outcome (`crashed`, or `timeout` for the CPU limit), never an
engine error.
"""

from __future__ import annotations

import asyncio
import base64
import json
import signal
import time
from typing import Any

from sandbox import framing
from sandbox.cache import CompileCache, Compiled, content_key
from sandbox.contract import (
    HostApi,
    Limits,
    Outcome,
    OutcomeStatus,
    RuntimeName,
    ScriptContext,
)
from sandbox.errors import ScriptRejected
from sandbox.hostcalls import HostCallRefused, HostLimitReached, HostSession
from sandbox.outcomes import Run
from sandbox.pool import WorkerHandle, WorkerPool
from sandbox.source import MAX_SCRIPT_BYTES, decode_script, describe_seconds
from sandbox.warm import Binding

_CODE_FRAME_BYTES = 16 * 1024 * 1024
_DONE: dict[str, Any] = {"done": True}


#: Workers a compilation may use before a crash is taken as the script's doing.
COMPILE_TRIES = 2


class PythonRuntime:
    """`runtime("python")`: see `sandbox.Runtime` for the contract."""

    name = RuntimeName.PYTHON

    def __init__(self, pool: WorkerPool, cache: CompileCache, compile_limits: Limits) -> None:
        self._pool = pool
        self._cache = cache
        self._compile_limits = compile_limits

    async def validate(self, script: str | bytes) -> None:
        """Compile in a worker (bounded like a run); raise ScriptRejected(line, reason)."""
        source = decode_script(script)
        key = content_key("python", source)
        error = None
        for _ in range(COMPILE_TRIES):
            if self._cache.get(key) is not None:
                break
            job = {"mode": "compile", "source": source}
            run = Run(RuntimeName.PYTHON, self._compile_limits)
            outcome = await self._converse(job, key, run, None, None)
            error = outcome.error
            # A worker that died without a word may have been killed from outside (OOM
            # killer, a starved machine): try a fresh one before blaming the script.
            if outcome.status is not OutcomeStatus.CRASHED:
                break
        entry = self._cache.get(key)
        if entry is None:
            raise ScriptRejected(f"the script could not be compiled: {error}")
        if entry.reason is not None:
            raise ScriptRejected(entry.reason, entry.line)

    async def run(
        self, script: str | bytes, context: ScriptContext, limits: Limits, host: HostApi
    ) -> Outcome:
        """Run `main(ctx)` once; every failure of the script is the returned Outcome."""
        run = Run(RuntimeName.PYTHON, limits)
        try:
            source, key, entry = self._cache.lookup(script, "python", MAX_SCRIPT_BYTES)
        except ScriptRejected as exc:
            return run.rejected(exc)
        job: dict[str, Any] = {"mode": "run", "context": context.to_json(), "limits": vars(limits)}
        if entry is not None and entry.artifact is not None:
            job["code"] = base64.b64encode(entry.artifact).decode()
        else:
            job["source"] = source
        binding = Binding(context.tenant_id, limits.memory_bytes)
        return await self._converse(job, key, run, HostSession(host, limits), binding)

    async def _converse(
        self,
        job: dict[str, Any],
        key: str,
        run: Run,
        session: HostSession | None,
        binding: Binding | None,
    ) -> Outcome:
        limits = run.limits
        job.setdefault("limits", vars(limits))
        handle = await self._pool.acquire(binding, limits.effective_cpu_s)
        cpu_before_s = handle.cpu_used_s
        run.pid = handle.pid
        run.started_s = time.monotonic()  # the clock starts with the worker, as the limit does
        frame_bytes = _CODE_FRAME_BYTES + 6 * limits.output_bytes + 2 * limits.result_bytes
        channel = handle.channel()
        channel.begin(frame_bytes)
        try:
            async with asyncio.timeout(limits.timeout_s):
                await channel.send(job)
                while True:
                    message = await channel.read()
                    reply = await self._handle(message, key, session, run)
                    if reply is _DONE:
                        return run.outcome(session)
                    if reply is not None:
                        await channel.send(reply)
        except TimeoutError:
            handle.kill()
            run.set_output(handle.printed(limits.output_bytes), truncated=False)
            return run.timed_out(session)
        except (EOFError, framing.FrameError, ConnectionError):
            return await self._died(handle, run, session, cpu_before_s)
        except HostLimitReached as exc:
            return run.ended(exc.status, str(exc), session)
        finally:
            self._pool.release(handle, run.worker_report if session is not None else None)

    async def _handle(
        self, message: Any, key: str, session: HostSession | None, run: Run
    ) -> dict[str, Any] | None:
        """React to one worker message: a reply to send, None, or _DONE once it has reported."""
        kind = message.get("t") if isinstance(message, dict) else None
        if kind == "compiled":
            self._cache.put(key, Compiled(artifact=base64.b64decode(message["code"])))
            return None
        if kind == "call" and session is not None:
            return await _answer(session, message)
        if kind == "done":
            if message.get("status") == OutcomeStatus.REJECTED:
                self._cache.put(
                    key, Compiled(reason=str(message.get("error")), line=message.get("line"))
                )
            run.report(message)
            return _DONE
        raise framing.FrameError(f"unexpected worker message {kind!r}")

    async def _died(
        self, handle: WorkerHandle, run: Run, session: HostSession | None, cpu_before_s: float
    ) -> Outcome:
        if self._pool.is_stopping:
            return run.ended(OutcomeStatus.KILLED, "stopped: the sandbox shut down", session)
        run.set_output(handle.printed(run.limits.output_bytes), truncated=False)
        report = await self._pool.exit_report(handle, 2.0) or {}
        cpu_s = report.get("cpu_s")  # the worker's whole life: count only this run
        run.cpu_s = None if cpu_s is None else max(0.0, cpu_s - cpu_before_s)
        run.peak_memory_bytes = report.get("peak_memory_bytes")
        number = report.get("signal")
        if number == signal.SIGXCPU:
            limit = describe_seconds(run.limits.effective_cpu_s)
            return run.ended(OutcomeStatus.TIMEOUT, f"used more than {limit} of CPU time", session)
        name = signal.Signals(number).name if number else f"exit code {report.get('code')}"
        self._pool.counts.crashed += 1
        return run.ended(
            OutcomeStatus.CRASHED, f"the worker died without reporting ({name})", session
        )


async def _answer(session: HostSession, message: dict[str, Any]) -> dict[str, Any]:
    try:
        value = await session.call(message.get("op"), message.get("args"))
        json.dumps(value, allow_nan=False)
    except HostCallRefused as exc:
        return {"error": str(exc)}
    except (TypeError, ValueError) as exc:
        return {"error": f"the stored value is not JSON: {exc}"}
    return {"value": value}
