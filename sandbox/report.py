"""A worker's final report on a job, read by the engine as untrusted input.

A worker runs tenant code, so its report is checked like anything else a tenant sends: each
field has its type and bound, its text is cleaned (`sandbox.text`), and a report that does not
fit (a status a worker may not claim, a result that is not JSON, numbers that are not
numbers) makes the run `crashed` with the reason, never an exception in the engine.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from sandbox.contract import OutcomeStatus
from sandbox.framing import FrameError
from sandbox.text import clean_json, clean_text

#: What a worker may say of a job; `killed` and `crashed` are only ever the engine's findings.
WORKER_STATUSES = frozenset(OutcomeStatus) - {OutcomeStatus.KILLED, OutcomeStatus.CRASHED}
_STATUS_OF = {str(status): status for status in WORKER_STATUSES}
_ERROR_CHARS = 4000


@dataclass(frozen=True)
class WorkerReport:
    status: OutcomeStatus
    error: str | None = None
    line: int | None = None
    stdout: str = ""
    truncated: bool = False
    result: Any = None
    cpu_s: float | None = None
    #: The worker's CPU used in all and its CPU budget (when it may be kept warm).
    cpu_total_s: float = 0.0
    cpu_limit_s: float = 0.0
    peak_memory_bytes: int | None = None
    fuel: int | None = None


def parse(message: Any) -> WorkerReport:
    """The report in a DONE frame; FrameError naming the first field that does not fit."""
    if type(message) is not dict:
        raise FrameError("the report is not a JSON object")
    said = message.get("status")
    status = _STATUS_OF.get(said) if type(said) is str else None
    if status is None:
        raise FrameError(f"a worker may not report status {said!r}")
    error = _field(message, "error", str)
    return WorkerReport(
        status=status,
        error=None if error is None else clean_text(error[:_ERROR_CHARS]),
        line=_field(message, "line", int),
        stdout=clean_text(_field(message, "stdout", str, "")),
        truncated=_field(message, "truncated", bool, False),
        result=_result(message) if status is OutcomeStatus.OK else None,
        cpu_s=_number(message, "cpu_s"),
        cpu_total_s=_number(message, "cpu_total_s") or 0.0,
        cpu_limit_s=_number(message, "cpu_limit_s") or 0.0,
        peak_memory_bytes=_field(message, "peak_memory_bytes", int),
        fuel=_field(message, "fuel", int),
    )


def _field(message: dict[str, Any], name: str, kind: type, default: Any = None) -> Any:
    """The field `name` of type `kind`; `default` if it is missing or null."""
    value = message.get(name)
    if value is None:
        return default
    if type(value) is not kind:
        raise FrameError(f"the report's {name} is not a {kind.__name__}")
    return value


def _number(message: dict[str, Any], name: str) -> float | None:
    value = message.get(name)
    if value is None:
        return None
    if type(value) not in (int, float) or not math.isfinite(value) or value < 0:
        raise FrameError(f"the report's {name} is not a number of seconds")
    return float(value)


def _result(message: dict[str, Any]) -> Any:
    text = _field(message, "result_json", str, "null")
    try:
        return clean_json(json.loads(text, parse_constant=_refuse))
    except (ValueError, RecursionError) as exc:
        raise FrameError(f"the report's result is not JSON: {exc}") from None


def _refuse(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")
