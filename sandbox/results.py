"""A script's return value, checked and encoded inside the worker, under the run's limits.

The result leaves the worker as JSON text whose strings are clean (`sandbox.text`); the
engine parses it again, bounded. A value that is not JSON is the script's error, a value
larger than the run's result limit its `output_limit`.
"""

from __future__ import annotations

import json
from typing import Any

from sandbox.text import clean_json

#: The longest error message a report carries.
ERROR_CHARS = 2000


def value_report(value: Any, limit_bytes: int) -> dict[str, Any]:
    """The report of a run that returned `value` (a Python object)."""
    try:
        text = json.dumps(value, allow_nan=False, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError) as exc:
        kind = type(value).__name__
        return {"status": "error", "error": f"main() returned a {kind}, which is not JSON: {exc}"}
    if "\\u0000" not in text and "\\ud" not in text:  # ASCII JSON: no NUL, no surrogate
        return _sized({"status": "ok", "result_json": text}, text, limit_bytes)
    return json_report(text, limit_bytes)


def json_report(text: str, limit_bytes: int) -> dict[str, Any]:
    """The report of a run whose result is the JSON `text` (from a guest: parsed, and its
    strings cleaned)."""
    too_large = _too_large(text, limit_bytes)
    if too_large is not None:
        return too_large
    try:
        value = clean_json(json.loads(text, parse_constant=_not_json))
    except (ValueError, RecursionError) as exc:
        return {"status": "error", "error": f"main() returned a value that is not JSON: {exc}"}
    return {"status": "ok", "result_json": json.dumps(value, separators=(",", ":"))}


def _sized(report: dict[str, Any], text: str, limit_bytes: int) -> dict[str, Any]:
    return _too_large(text, limit_bytes) or report


def _too_large(text: str, limit_bytes: int) -> dict[str, Any] | None:
    size = len(text.encode("utf-8", "surrogatepass"))
    if size <= limit_bytes:
        return None
    message = f"main() returned {size} bytes of JSON (limit {limit_bytes} bytes)"
    return {"status": "output_limit", "error": message}


def _not_json(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")
