"""How a MicroPython run ended, from the prelude's report or from what the host saw.

Three MicroPython facts shape the statuses: its heap is fixed at 1 MiB, and running out of it
is a `MemoryError` the prelude reports, a fault outside the guest's memory (the interpreter
does not always raise), or an interpreter that stops before it can report; a script whose
compilation failed is rejected; and a compilation that runs out of time stays a timeout
(MicroPython folds constants such as `10 ** 10 ** 10` while compiling).
"""

from __future__ import annotations

import json
from typing import Any

import wasmtime

from sandbox.contract import Limits, OutcomeStatus
from sandbox.results import json_report
from sandbox.wasm.guest import GuestRun

HEAP = "ran out of memory (MicroPython's heap is 1 MiB)"
_NO_MAIN = "the script must define a top-level function main(ctx)"


def ending_report(kind: str, details: str, limits: Limits) -> dict[str, Any]:
    """The report of a run the prelude ended with `__end` (see `micropython.prelude`)."""
    if kind == "r":
        return json_report(details, limits.result_bytes)
    if kind == "v":
        return {"status": "ok"}
    if kind == "m":
        if details == "0":
            return {"status": "rejected", "error": f"the script cannot be compiled: {HEAP}"}
        return {"status": "memory", "error": HEAP}
    if kind == "n":
        return {"status": "rejected", "error": _NO_MAIN}
    return _failure(kind, details)


def _failure(kind: str, details: str) -> dict[str, Any]:
    try:
        first, second = json.loads(details)
    except (ValueError, TypeError, RecursionError):
        first, second = "(the failure could not be read)", None
    if kind == "j":
        return {
            "status": "error",
            "error": f"main() returned a {first}, which is not JSON: {second}",
        }
    status = "rejected" if kind == "c" else "error"
    line = second if type(second) is int else None
    return {"status": status, "error": str(first), "line": line}


def classify(
    guest: GuestRun, exc: Exception, memory_bytes: int, compiled: bool
) -> tuple[OutcomeStatus, str]:
    """Like `GuestRun.classify`, knowing that the interpreter faults out of bounds when its
    heap runs out, and that a script whose compilation trapped is rejected."""
    status, message = guest.classify(exc, memory_bytes)
    code = exc.trap_code if isinstance(exc, wasmtime.Trap) else None
    if code is wasmtime.TrapCode.MEMORY_OUT_OF_BOUNDS and guest.stop is None:
        status, message = OutcomeStatus.MEMORY, HEAP
    if not compiled and guest.stop is None and status is not OutcomeStatus.TIMEOUT:
        status, message = OutcomeStatus.REJECTED, f"the script cannot be compiled: {message}"
    return status, message


def unreported() -> dict[str, Any]:
    """The interpreter stopped cleanly after the script started, without the prelude's report:
    the prelude reports every exception, so it failed to report one, which happens when the
    heap is too full even for that."""
    return {"status": "memory", "error": f"{HEAP}; the run ended before it could report"}
