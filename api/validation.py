"""Turning input errors into `errors` entries: which field, where in it, what is wrong, the fix."""

from __future__ import annotations

from typing import Any

from fastapi.exceptions import RequestValidationError

from engine.errors import InvalidRule
from engine.recurrence.errors import InvalidSchedule

_SOURCES = ("body", "query", "path", "header", "cookie")


def _entry(field: str, message: str, **extra: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {"field": field, "message": message}
    entry.update({k: v for k, v in extra.items() if v is not None})
    return entry


def _from_pydantic(error: Any) -> dict[str, Any]:
    loc = [str(part) for part in error.get("loc", ())]
    source = loc[0] if loc and loc[0] in _SOURCES else "body"
    path = loc[1:] if loc and loc[0] in _SOURCES else loc
    message = str(error.get("msg", "invalid")).removeprefix("Value error, ")
    if error.get("type") == "json_invalid":
        position = int(path[0]) if path and path[0].isdigit() else None
        reason = (error.get("ctx") or {}).get("error", "")
        return _entry(
            "body", f"invalid JSON: {reason}".rstrip(": "), position=position, **{"in": "body"}
        )
    return _entry(".".join(path) or source, message, **{"in": source})


def validation_errors(exc: RequestValidationError) -> list[dict[str, Any]]:
    """One entry per pydantic error, with `in` (body, query, path, header) and the field path."""
    found = [_from_pydantic(e) for e in exc.errors()]
    return found or [_entry("body", "invalid request")]


def field_errors(exc: InvalidSchedule | InvalidRule) -> list[dict[str, Any]]:
    """The single entry of a schedule or rule error, with its character position and hint."""
    if isinstance(exc, InvalidSchedule):
        return [_entry("schedule", exc.reason, position=exc.position, hint=exc.hint or None)]
    return [_entry(exc.field, exc.reason, position=exc.position, line=exc.line, hint=exc.hint)]
