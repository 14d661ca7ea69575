"""One WebAssembly run inside a worker: its budgets, its host calls, and how it ended.

Shared by the `wasm` and `micropython` executors. Guest code runs on the worker's main thread;
a host call goes to the engine over the worker's socket and blocks until answered (the engine
bounds that wait by the run's deadline and kills the worker past it). A budget running out
records *why* in `stop` and raises `GuestStopped`, which wasmtime turns into a trap that
unwinds the guest; the epoch deadline (`sandbox.wasm.engine.DeadlineTimer`) and fuel trap
it without its cooperation.
"""

from __future__ import annotations

import contextlib
import threading
import time
from typing import Any, TypeVar

import wasmtime

from sandbox.contract import Limits, OutcomeStatus
from sandbox.job import Job
from sandbox.source import describe_seconds
from sandbox.worker import Refused, Worker

WASM_PAGE_BYTES = 65536


class GuestStopped(Exception):
    """Raised inside a host function to end the run; `GuestRun.stop` says why."""


class GuestRun:
    """What the host functions of one run share (looked up through `current()`)."""

    _current = threading.local()

    def __init__(self, job: Job, worker: Worker, store: wasmtime.Store) -> None:
        self.job = job
        self.limits: Limits = job.limits
        self.worker = worker
        self.store = store
        self.started_s = worker.started_s
        self.stop: tuple[OutcomeStatus, str] | None = None
        #: The JSON text the guest set as its result, if it did.
        self.result_json: str | None = None
        self.output = worker.start_output(self._overflow)

    def __enter__(self) -> GuestRun:
        GuestRun._current.run = self
        return self

    def __exit__(self, *exc: object) -> None:
        GuestRun._current.run = None

    def close(self) -> None:
        """Let go of the store (and its linear memory) now, not at the next garbage collection:
        the output and this run refer to each other."""
        self.store = None  # type: ignore[assignment]
        self.output = None  # type: ignore[assignment]

    @staticmethod
    def current() -> GuestRun:
        run = getattr(GuestRun._current, "run", None)
        if run is None:
            raise GuestStopped("host function called outside a run")
        return run

    def end(self, status: OutcomeStatus, message: str) -> GuestStopped:
        """Record why the run ends (the first reason wins); raise the returned exception to
        trap the guest."""
        if self.stop is None:
            self.stop = (status, message)
        return GuestStopped(message)

    def host_call(self, op: str, args: list[Any]) -> Any:
        """One host-API call, answered by the engine; Refused goes back to the guest."""
        return self.worker.call(op, args)

    def log(self, line: str) -> None:
        if not self.worker.log(line):
            raise self.end(OutcomeStatus.OUTPUT_LIMIT, "logged more than the output limit")

    def refuse(self, reason: str) -> None:
        """Tell the engine of a call this worker refused (it counts, and is logged)."""
        with contextlib.suppress(Refused):
            self.worker.call("refused", [reason])

    def write_stdout(self, text: str) -> None:
        """Append guest output, capped as it is written; past the cap, end the run."""
        self.output.write(text)
        if self.stop is not None:
            raise GuestStopped(self.stop[1])

    def _overflow(self) -> None:
        self.end(OutcomeStatus.OUTPUT_LIMIT, "printed more than the output limit")

    def timeout_message(self) -> str:
        elapsed = time.monotonic() - self.started_s
        return f"stopped after {elapsed:.1f} s (limit {describe_seconds(self.limits.timeout_s)})"

    def classify(self, exc: Exception, memory_bytes: int) -> tuple[OutcomeStatus, str]:
        """How a trap or wasmtime error ends the run."""
        if self.stop is not None:
            return self.stop
        code = exc.trap_code if isinstance(exc, wasmtime.Trap) else None
        if self.is_out_of_memory(memory_bytes):
            # the guest used up its memory; whatever it did next (trap, spin) follows from that
            return (
                OutcomeStatus.MEMORY,
                f"ran out of memory (limit {self.limits.memory_bytes} bytes)",
            )
        if code is wasmtime.TrapCode.INTERRUPT:
            return OutcomeStatus.TIMEOUT, self.timeout_message()
        if code is wasmtime.TrapCode.OUT_OF_FUEL:
            cpu = describe_seconds(self.limits.effective_cpu_s)
            return OutcomeStatus.TIMEOUT, f"used all of its fuel (the CPU limit of {cpu})"
        if code is wasmtime.TrapCode.STACK_OVERFLOW:
            return OutcomeStatus.ERROR, "stack overflow (recursion too deep)"
        return OutcomeStatus.ERROR, f"trapped: {trap_message(exc)}"

    def is_out_of_memory(self, memory_bytes: int) -> bool:
        """Whether the guest's memory is within a page (or a tenth) of its limit."""
        limit_bytes = self.limits.memory_bytes
        return memory_bytes >= limit_bytes - max(WASM_PAGE_BYTES, limit_bytes // 10)


_E = TypeVar("_E", bound=BaseException)


def detach(exc: _E) -> _E:
    """`exc` without its traceback: the frames would keep the run's store (and its linear
    memory) alive until the next garbage collection."""
    exc.__traceback__ = exc.__context__ = None
    return exc


def fuel_used(store: wasmtime.Store, granted: int, exc: BaseException | None) -> int | None:
    """The fuel a run used, when it is known. wasmtime keeps the count in a register between
    calls, so a trap in the middle of guest code (the wall clock's interrupt included) leaves
    the store's figure stale: only running out of fuel says exactly how much was used."""
    if not isinstance(exc, wasmtime.Trap):  # a return, or a stop from a host function
        return granted - store.get_fuel()
    return granted if exc.trap_code is wasmtime.TrapCode.OUT_OF_FUEL else None


def trap_message(exc: Exception) -> str:
    """The cause of a wasmtime error, without its backtrace."""
    text = str(exc).strip()
    if "Caused by:" in text:
        text = text.split("Caused by:", 1)[1].strip()
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return (lines[0] if lines else type(exc).__name__)[:1000]
