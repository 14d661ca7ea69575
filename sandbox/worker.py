"""Inside a worker process: receive a job, bind the limits, hand it to its runtime, report.

A worker is forked from the zygote and confined before it sees any job (`sandbox.isolation`).
Its first job binds it for life: to one tenant and memory limit (the engine only ever sends it
jobs of that binding, see `sandbox.warm`) and to one runtime, whose `Executor` then serves
every job. Everything read from the engine is bounded, everything sent back is clean text
(`sandbox.text`) checked against the run's limits before it is sent; the engine checks it all
again. After any status but ok/error, or a check, the worker exits rather than trust its state.
"""

from __future__ import annotations

import os
import re
import resource
import socket
import sys
import time
from collections.abc import Callable, Mapping
from typing import Any, NoReturn, Protocol

from sandbox import framing, isolation
from sandbox.contract import RuntimeName
from sandbox.framing import Kind
from sandbox.hostcalls import call_frame_bytes, log_bytes
from sandbox.job import CodeForm, Job, Mode
from sandbox.output import Output
from sandbox.output_window import OutputWindow
from sandbox.results import ERROR_CHARS
from sandbox.text import clean_json, clean_text
from sandbox.warm import REUSABLE_STATUSES

MAX_JOB_BYTES = 8 * 1024 * 1024
#: Module binaries (4 MiB) and compiled artifacts arrive as one BLOB frame.
MAX_BLOB_BYTES = 256 * 1024 * 1024
MAX_REPLY_BYTES = 4 * 1024 * 1024
#: How `json.dumps` (ASCII output) writes a surrogate or a NUL: JSON text without this holds
#: none (an escaped backslash before `u0000` matches too, which only costs the slow path).
_ESCAPED_UNSTORABLE = re.compile(r"\\u(?:0000|d[89a-f])")


class Refused(Exception):
    """A host call the engine (or this worker, for its size) refused; the message says why."""


class Executor(Protocol):
    """One runtime's side of a worker: serves `job` and every later job, never returns."""

    def serve(self, job: Job, worker: Worker) -> NoReturn: ...


class Worker:
    """The worker's end of its socket, and the state of the job in progress."""

    def __init__(
        self,
        sock: socket.socket,
        window: OutputWindow,
        executors: Mapping[RuntimeName, Executor],
        baseline: isolation.Baseline,
    ) -> None:
        self._sock = sock
        self._receiver = framing.Receiver(sock)
        self._window = window
        self._executors = executors
        self._baseline = baseline
        self._bound: tuple[RuntimeName, int] | None = None
        self._cpu_hard_s = 0
        self._cpu_started_s = 0.0
        self._call_bytes = 0
        self._log_bytes = 0
        self.job: Job | None = None
        #: When the job arrived (monotonic): its time limit runs from here, as the engine's
        #: clock, started as it sent the job, does; loading its code counts against it.
        self.started_s = 0.0
        #: The code that came with the job (source or artifact), None if the worker holds it.
        self.blob: bytes | None = None
        self.output: Output | None = None

    def serve(self) -> NoReturn:
        """Wait for the first job, then let its runtime serve until the worker ends."""
        job = self.next_job()
        self._executors[job.runtime].serve(job, self)

    def next_job(self) -> Job:
        """Block for the next job (exit when the engine hangs up) and start it: its CPU
        limit, a fresh output, its code if it came with one."""
        try:
            job = Job.from_json(framing.loads(self._receive(Kind.JOB, MAX_JOB_BYTES)))
            self.started_s = time.monotonic()
            blob = None if job.form is CodeForm.HELD else self._receive(Kind.BLOB, MAX_BLOB_BYTES)
        except (EOFError, OSError, ValueError, KeyError, TypeError):
            self.exit()
        self._bind(job)
        self.job, self.blob, self.output = job, blob, None
        self._call_bytes = call_frame_bytes(job.limits)
        self._log_bytes = 0
        self._cpu_started_s = isolation.limit_run_cpu(job.limits.effective_cpu_s, self._cpu_hard_s)
        self._window.reset()
        return job

    def _receive(self, kind: Kind, limit_bytes: int) -> bytes:
        got, body = self._receiver.receive(limit_bytes)
        if got is not kind:
            raise ValueError(f"expected a {kind.name} frame, got {got.name}")
        return body

    def _bind(self, job: Job) -> None:
        binding = (job.runtime, job.limits.memory_bytes)
        if self._bound is None:
            self._bound = binding
            cpu_s = job.limits.effective_cpu_s
            self._cpu_hard_s = isolation.bind_limits(job.runtime, self._baseline, binding[1], cpu_s)
        elif binding != self._bound:
            self.exit()  # the engine never does this: a worker's binding is fixed

    def start_output(self, on_overflow: Callable[[], None]) -> Output:
        """The job's stdout, capped at its limit; `on_overflow` stops the script."""
        assert self.job is not None
        self.output = Output(self.job.limits.output_bytes, on_overflow, self._window.append)
        return self.output

    def call(self, op: str, args: list[Any]) -> Any:
        """One host call, answered by the engine; Refused if it is not JSON, too large (checked
        on its first encoding, before anything else is done with it), or refused by the
        engine."""
        assert self.job is not None
        try:
            text = dumps_args(args)
            if len(text) > self._call_bytes:
                limit = self.job.limits.value_bytes
                raise Refused(f"{op}: the value is larger than {limit} bytes as JSON")
            body = call_body(op, text)
        except framing.FrameError as exc:
            raise Refused(str(exc)) from None
        self._send(Kind.CALL, body.encode())
        reply = framing.loads(self._receive(Kind.REPLY, MAX_REPLY_BYTES))
        if "error" in reply:
            raise Refused(str(reply["error"]))
        return reply.get("value")

    def log(self, line: str) -> bool:
        """Send one log line, unless it would go past the run's log budget (False: the run
        must end as `output_limit`). The engine counts the budget again."""
        assert self.job is not None
        line = clean_text(line)
        self._log_bytes += log_bytes(line)
        if self._log_bytes > self.job.limits.output_bytes:
            return False
        self._send(Kind.LOG, line.encode())
        return True

    def artifact(self, data: bytes) -> None:
        """Hand code this worker compiled to the engine, for its tenant's next workers."""
        self._send(Kind.ARTIFACT, data)

    def finish(self, report: dict[str, Any]) -> None:
        """Send the job's report; exit unless the worker may serve its tenant's next run."""
        assert self.job is not None
        cpu_total_s = isolation.cpu_used_s()
        report.update(
            cpu_s=cpu_total_s - self._cpu_started_s,
            cpu_total_s=cpu_total_s,
            cpu_limit_s=self._cpu_hard_s,
            stdout=self.output.text() if self.output else "",
            truncated=bool(self.output and self.output.is_truncated),
        )
        if "peak_memory_bytes" not in report:
            report["peak_memory_bytes"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        if isinstance(report.get("error"), str):
            report["error"] = clean_text(report["error"])[:ERROR_CHARS]
        self._send(Kind.DONE, framing.dumps(report).encode())
        if report["status"] not in REUSABLE_STATUSES or self.job.mode is Mode.CHECK:
            self.exit()

    def _send(self, kind: Kind, body: bytes) -> None:
        try:
            framing.send(self._sock, kind, body)
        except OSError:
            self.exit()

    @staticmethod
    def exit() -> NoReturn:
        sys.stdout.flush()
        os._exit(0)


def call_body(op: str, text: str) -> str:
    """A CALL frame's body for arguments already encoded as `text`: they are sent as they are
    unless they hold a surrogate or a NUL, and only then parsed, cleaned and encoded again
    (re-encoding a large kv value cost every host call as much as encoding it)."""
    if _ESCAPED_UNSTORABLE.search(text) is None:
        return f'{{"op":{framing.dumps(op)},"args":{text}}}'
    return framing.dumps({"op": op, "args": clean_json(framing.loads(text.encode()))})


def dumps_args(args: list[Any]) -> str:
    """Host-call arguments as JSON text (exact built-in types only); FrameError if not JSON."""
    try:
        return framing.dumps(args)
    except (TypeError, ValueError, RecursionError) as exc:
        raise framing.FrameError(f"host call arguments must be JSON values: {exc}") from None
