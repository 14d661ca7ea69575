"""One WebAssembly run seen from the host: budgets, host calls from the run thread, endings.

Shared by the `wasm` and `micropython` runtimes. Guest code runs on a wasmtime thread while
the engine's `HostApi` lives on the event loop: a host call is handed to the loop and waited
for no longer than the run's remaining wall-clock time. A budget running out records *why*
in `stop` and raises, which wasmtime turns into a trap that unwinds the guest.
"""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import wasmtime

from sandbox.contract import Limits, OutcomeStatus
from sandbox.hostcalls import HostCallRefused, HostLimitReached, HostSession
from sandbox.outcomes import Run
from sandbox.source import describe_seconds

WASM_PAGE_BYTES = 65536


class GuestStopped(Exception):
    """Raised inside a host function to end the run; `GuestRun.stop` says why."""


class GuestRun:
    """What the host functions of one run share (looked up through `current()`)."""

    _current = threading.local()

    def __init__(
        self,
        run: Run,
        session: HostSession,
        context: dict[str, Any],
        loop: asyncio.AbstractEventLoop,
    ) -> None:
        self.run = run
        self.context = context
        self.limits: Limits = run.limits
        self.session = session
        self.loop = loop
        self.deadline_s = run.started_s + run.limits.timeout_s
        self.stdout = bytearray()
        self.result_json: str | None = None
        self.stop: tuple[OutcomeStatus, str] | None = None
        self.store: wasmtime.Store | None = None

    def __enter__(self) -> GuestRun:
        GuestRun._current.run = self
        return self

    def __exit__(self, *exc: object) -> None:
        GuestRun._current.run = None

    @staticmethod
    def current() -> GuestRun:
        run = getattr(GuestRun._current, "run", None)
        if run is None:
            raise GuestStopped("host function called outside a run")
        return run

    def end(self, status: OutcomeStatus, message: str) -> GuestStopped:
        """Record why the run ends; raise the returned exception to trap the guest.

        Where raising is not possible (WASI output callbacks), the epoch deadline is pulled
        in instead, so the guest traps at its next check.
        """
        if self.stop is None:
            self.stop = (status, message)
        if self.store is not None:
            self.store.set_epoch_deadline(0)
        return GuestStopped(message)

    def host_call(self, op: str, args: list[Any]) -> Any:
        """Run one host-API call on the event loop; HostCallRefused goes back to the guest."""
        remaining_s = self.deadline_s - time.monotonic()
        future = asyncio.run_coroutine_threadsafe(self.session.call(op, args), self.loop)
        try:
            return future.result(timeout=max(remaining_s, 0.0))
        except HostLimitReached as exc:
            raise self.end(exc.status, str(exc)) from None
        except TimeoutError:
            future.cancel()
            raise self.end(OutcomeStatus.TIMEOUT, self.timeout_message()) from None
        except HostCallRefused:
            raise

    def write_stdout(self, data: bytes) -> GuestStopped | None:
        """Append guest output, capped as it is written; past the cap, end the run."""
        room = self.limits.output_bytes - len(self.stdout)
        self.stdout += data[: max(room, 0)]
        if len(data) <= room:
            return None
        self.run.truncated = True
        return self.end(OutcomeStatus.OUTPUT_LIMIT, "printed more than the output limit")

    def timeout_message(self) -> str:
        elapsed = time.monotonic() - self.run.started_s
        return f"stopped after {elapsed:.1f} s (limit {describe_seconds(self.limits.timeout_s)})"

    def classify(self, exc: Exception, memory_bytes: int) -> tuple[OutcomeStatus, str]:
        """How a trap or wasmtime error ends the run."""
        if self.stop is not None:
            return self.stop
        code = exc.trap_code if isinstance(exc, wasmtime.Trap) else None
        limit_bytes = self.limits.memory_bytes
        if memory_bytes >= limit_bytes - max(WASM_PAGE_BYTES, limit_bytes // 10):
            # the guest used up its memory; whatever it did next (trap, spin) follows from that
            limit = self.limits.memory_bytes
            return OutcomeStatus.MEMORY, f"ran out of memory (limit {limit} bytes)"
        if code is wasmtime.TrapCode.INTERRUPT:
            return OutcomeStatus.TIMEOUT, self.timeout_message()
        if code is wasmtime.TrapCode.OUT_OF_FUEL:
            cpu = describe_seconds(self.limits.effective_cpu_s)
            return OutcomeStatus.TIMEOUT, f"used all of its fuel (the CPU limit of {cpu})"
        limit_bytes = self.limits.memory_bytes
        if memory_bytes >= limit_bytes - max(WASM_PAGE_BYTES, limit_bytes // 10):
            return (
                OutcomeStatus.MEMORY,
                f"ran out of memory (limit {self.limits.memory_bytes} bytes)",
            )
        if code is wasmtime.TrapCode.STACK_OVERFLOW:
            return OutcomeStatus.ERROR, "stack overflow (recursion too deep)"
        return OutcomeStatus.ERROR, f"trapped: {_trap_message(exc)}"[:2000]


def _trap_message(exc: Exception) -> str:
    """The cause of a wasmtime error, without its backtrace."""
    text = str(exc).strip()
    if "Caused by:" in text:
        text = text.split("Caused by:", 1)[1].strip()
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[0] if lines else type(exc).__name__
