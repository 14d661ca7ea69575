"""Reading an error answer: its problem document, the exception class for its type, and the
wait a `Retry-After` header asks for."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

import httpx

from cadenza_client.errors import (
    ApiProblem,
    Conflict,
    FieldError,
    Forbidden,
    InvalidCursor,
    InvalidInput,
    InvalidRule,
    InvalidSchedule,
    InvalidState,
    MethodNotAllowed,
    NotFound,
    PayloadTooLarge,
    QuotaExceeded,
    RangeTooLarge,
    RateLimited,
    ServerError,
    StaleVersion,
    Unauthorized,
    Unavailable,
    ValidationFailed,
)

PROBLEM_PREFIX = "/problems/"

#: Problem `type` slug -> the class raised for it; a status decides for an unknown slug.
_BY_SLUG: dict[str, type[ApiProblem]] = {
    "unauthorized": Unauthorized,
    "forbidden": Forbidden,
    "not-found": NotFound,
    "method-not-allowed": MethodNotAllowed,
    "conflict": Conflict,
    "invalid-state": InvalidState,
    "stale-version": StaleVersion,
    "payload-too-large": PayloadTooLarge,
    "validation": ValidationFailed,
    "invalid-input": InvalidInput,
    "invalid-schedule": InvalidSchedule,
    "schedule-too-complex": InvalidSchedule,
    "invalid-rule": InvalidRule,
    "quota-exceeded": QuotaExceeded,
    "invalid-cursor": InvalidCursor,
    "range-too-large": RangeTooLarge,
    "rate-limited": RateLimited,
    "unavailable": Unavailable,
    "internal": ServerError,
}
_BY_STATUS: dict[int, type[ApiProblem]] = {
    401: Unauthorized,
    403: Forbidden,
    404: NotFound,
    405: MethodNotAllowed,
    409: Conflict,
    412: StaleVersion,
    413: PayloadTooLarge,
    422: InvalidInput,
    429: RateLimited,
    503: Unavailable,
}


def retry_after_s(response: httpx.Response) -> float | None:
    """The wait a `Retry-After` header asks for, in seconds (delta-seconds or an HTTP date)."""
    value = response.headers.get("retry-after", "").strip()
    if value.isdigit():
        return float(value)
    if not value:
        return None
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        return None
    return max((when - datetime.now(UTC)).total_seconds(), 0.0)


def _field_errors(raw: object) -> tuple[FieldError, ...]:
    if not isinstance(raw, list):
        return ()
    return tuple(
        FieldError(
            field=str(entry.get("field", "")),
            message=str(entry.get("message", "")),
            position=entry.get("position"),
            line=entry.get("line"),
            hint=entry.get("hint"),
            location=entry.get("in"),
        )
        for entry in raw
        if isinstance(entry, dict)
    )


def _problem_body(response: httpx.Response) -> dict[str, Any]:
    """The problem document, or one made from the status for an answer that is not one."""
    try:
        body = response.json()
    except (json.JSONDecodeError, UnicodeDecodeError):
        body = None
    if isinstance(body, dict) and isinstance(body.get("type"), str):
        return body
    text = response.text.strip()[:200] or response.reason_phrase
    return {"type": "about:blank", "title": response.reason_phrase, "detail": text}


def problem_from(response: httpx.Response) -> ApiProblem:
    """The exception for an error answer: the class of its problem type, or of its status."""
    body = _problem_body(response)
    problem_type = str(body["type"])
    slug = problem_type.removeprefix(PROBLEM_PREFIX)
    cls = _BY_SLUG.get(slug) or _BY_STATUS.get(response.status_code)
    if cls is None:
        cls = ServerError if response.status_code >= 500 else ApiProblem
    fields: dict[str, Any] = {
        "type": problem_type,
        "status": response.status_code,
        "title": str(body.get("title", response.reason_phrase)),
        "detail": str(body.get("detail", "")),
        "errors": _field_errors(body.get("errors")),
        "body": body,
    }
    if issubclass(cls, RateLimited):
        return cls(retry_after_s=retry_after_s(response), **fields)
    return cls(**fields)
