"""RFC 9457 problem details: the one table from exception classes to HTTP answers.

Every error the API sends is `application/problem+json` with a `type` (a stable, relative URI
naming the kind of problem), a `title`, the `status`, a human `detail` and, for input errors,
`errors`: a list of `{field, message, position?, line?, hint?}`. An exception that is not in
`PROBLEMS` is a bug: it answers 500 `internal` and is logged with its traceback.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

from api.errors import (
    ApiError,
    AuthThrottled,
    BadCursor,
    BadParameter,
    EngineUnavailable,
    Forbidden,
    PayloadTooLarge,
    RateLimited,
    Unauthorized,
)
from api.metrics import route_of
from api.schemas.common import SCHEDULE_ERROR
from api.validation import field_errors, validation_errors
from engine.errors import (
    ActionNotFound,
    CalendarNotFound,
    InvalidRule,
    InvalidRuleSchedule,
    InvalidState,
    NotificationRouteNotFound,
    QuotaExceeded,
    RuleIdTaken,
    RuleNotFound,
    RuleVersionNotFound,
    RunNotFound,
    StaleVersion,
    TenantNotFound,
)
from engine.recurrence.errors import (
    EvaluationBudgetExceeded,
    InvalidSchedule,
    RangeTooLarge,
    ScheduleError,
)
from tenants.errors import Conflict, DatabaseUnavailable, InvalidInput, NotFound
from tenants.faults import DRIVER_ERRORS, as_unavailable, retry_after_s

log = logging.getLogger("cadenza.api")

MEDIA_TYPE = "application/problem+json"


@dataclass(frozen=True)
class Kind:
    """One kind of problem: its status and slug (`type` is `/problems/<slug>`)."""

    status: int
    slug: str
    title: str

    @property
    def type(self) -> str:
        return f"/problems/{self.slug}"


NOT_FOUND = Kind(404, "not-found", "Not found")
INVALID_SCHEDULE = Kind(422, "invalid-schedule", "Invalid schedule")
INVALID = Kind(422, "invalid-input", "Invalid input")
INTERNAL = Kind(500, "internal", "Internal error")

#: The one mapping from exception class to problem kind; the most specific class wins.
PROBLEMS: dict[type[BaseException], Kind] = {
    Unauthorized: Kind(401, "unauthorized", "Not authenticated"),
    Forbidden: Kind(403, "forbidden", "Not allowed"),
    RateLimited: Kind(429, "rate-limited", "Too many requests"),
    AuthThrottled: Kind(429, "auth-throttled", "Too many failed authentications"),
    PayloadTooLarge: Kind(413, "payload-too-large", "Request body too large"),
    BadCursor: Kind(422, "invalid-cursor", "Invalid cursor"),
    BadParameter: INVALID,
    EngineUnavailable: Kind(503, "unavailable", "Service unavailable"),
    NotFound: NOT_FOUND,
    RuleNotFound: NOT_FOUND,
    CalendarNotFound: NOT_FOUND,
    NotificationRouteNotFound: NOT_FOUND,
    RuleVersionNotFound: NOT_FOUND,
    ActionNotFound: NOT_FOUND,
    RunNotFound: NOT_FOUND,
    TenantNotFound: NOT_FOUND,
    Conflict: Kind(409, "conflict", "Conflict"),
    InvalidState: Kind(409, "invalid-state", "Not possible in the current state"),
    StaleVersion: Kind(412, "stale-version", "Precondition failed: stale version"),
    RuleIdTaken: Kind(409, "conflict", "Conflict"),
    InvalidInput: INVALID,
    InvalidRule: Kind(422, "invalid-rule", "Invalid rule"),
    InvalidRuleSchedule: INVALID_SCHEDULE,
    InvalidSchedule: INVALID_SCHEDULE,
    RangeTooLarge: Kind(422, "range-too-large", "Range too large"),
    EvaluationBudgetExceeded: Kind(422, "schedule-too-complex", "Schedule too complex"),
    ScheduleError: INVALID_SCHEDULE,
    QuotaExceeded: Kind(422, "quota-exceeded", "Quota exceeded"),
    RequestValidationError: Kind(422, "validation", "Request validation failed"),
    DatabaseUnavailable: Kind(503, "unavailable", "Service unavailable"),
}

#: Starlette's own HTTP errors (unknown route, wrong method) keep their status.
_HTTP_SLUGS = {
    404: "not-found",
    405: "method-not-allowed",
    400: "bad-request",
    413: "payload-too-large",
}


def kind_of(exc: BaseException) -> Kind | None:
    if isinstance(exc, RequestValidationError) and _is_schedule_error(exc):
        return INVALID_SCHEDULE
    for cls in type(exc).__mro__:
        if cls in PROBLEMS:
            return PROBLEMS[cls]
    return None


def _is_schedule_error(exc: RequestValidationError) -> bool:
    """Only a time zone the schema refused: the same problem as a schedule the engine refuses."""
    found = exc.errors()
    return bool(found) and all(e.get("type") == SCHEDULE_ERROR for e in found)


def problem_response(
    kind: Kind, detail: str, request: Request | None = None, **extra: Any
) -> JSONResponse:
    body: dict[str, Any] = {
        "type": kind.type,
        "title": kind.title,
        "status": kind.status,
        "detail": detail,
    }
    if request is not None:
        body["instance"] = request.url.path
    body.update({k: v for k, v in extra.items() if v is not None})
    return JSONResponse(body, status_code=kind.status, media_type=MEDIA_TYPE)


def _extras(exc: BaseException) -> dict[str, Any]:
    """Fields beyond detail that a client can act on: where the input is wrong, what to send."""
    if isinstance(exc, RequestValidationError):
        return {"errors": validation_errors(exc)}
    if isinstance(exc, InvalidSchedule | InvalidRule):
        return {"errors": field_errors(exc)}
    if isinstance(exc, StaleVersion):
        return {"current_version": exc.current_version}
    if isinstance(exc, QuotaExceeded):
        return {"quota": exc.quota}
    if isinstance(exc, ApiError) and exc.field is not None:
        return {"errors": [{"field": exc.field, "message": str(exc)}]}
    return {}


def _detail(exc: BaseException) -> str:
    if isinstance(exc, RequestValidationError):
        first = validation_errors(exc)[0]
        return f"{first['field']}: {first['message']}"
    return str(exc) or (type(exc).__doc__ or "").strip()


async def handle(request: Request, exc: Exception) -> JSONResponse:
    """Answer any exception as a problem; unmapped ones are bugs and are logged as such. A
    driver error that means the database is unavailable (unreachable, locked past its busy
    timeout, disk full) is a 503 with Retry-After, never a 500."""
    unavailable = as_unavailable(exc)
    if unavailable is not None:
        log.warning("answering 503 on %s %s: %s", request.method, request.url.path, unavailable)
        response = problem_response(PROBLEMS[DatabaseUnavailable], str(unavailable), request)
        response.headers["Retry-After"] = str(retry_after_s(unavailable))
        return response
    if isinstance(exc, HTTPException) and kind_of(exc) is None:
        return _http_problem(request, exc)
    if isinstance(exc, RequestValidationError) and _body_not_json(request, exc):
        entry = {"field": "body", "in": "header", "message": "the body is not declared as JSON"}
        detail = "send the body as JSON, with the header Content-Type: application/json"
        return problem_response(PROBLEMS[RequestValidationError], detail, request, errors=[entry])
    kind = kind_of(exc)
    if kind is None:
        log.error("unmapped exception on %s %s", request.method, request.url.path, exc_info=exc)
        return problem_response(INTERNAL, "an unexpected error; it was logged", request)
    response = problem_response(kind, _detail(exc), request, **_extras(exc))
    if isinstance(exc, RateLimited | AuthThrottled):
        response.headers["Retry-After"] = str(exc.retry_after_s)
    if isinstance(exc, Unauthorized):
        response.headers["WWW-Authenticate"] = "Bearer"
    return response


def _body_not_json(request: Request, exc: RequestValidationError) -> bool:
    """A body sent as a form or text (curl -d without a Content-Type header, say)."""
    declared = request.headers.get("content-type", "")
    is_body_error = any(tuple(e.get("loc", ()))[:1] == ("body",) for e in exc.errors())
    return bool(declared) and "json" not in declared.lower() and is_body_error


def _http_problem(request: Request, exc: HTTPException) -> JSONResponse:
    """Starlette's own errors; a body FastAPI could not decode is invalid JSON like any other."""
    if exc.status_code == 400 and exc.__cause__ is not None:
        entry = {"field": "body", "message": "invalid JSON: not UTF-8 text", "in": "body"}
        detail = "body: the request body is not UTF-8 JSON"
        return problem_response(PROBLEMS[RequestValidationError], detail, request, errors=[entry])
    slug = _HTTP_SLUGS.get(exc.status_code, "http-error")
    kind = Kind(exc.status_code, slug, str(exc.detail))
    response = problem_response(kind, str(exc.detail), request)
    response.headers.update(exc.headers or {})
    if exc.status_code == 405:
        response.headers["Allow"] = ", ".join(_allowed_methods(request))
    return response


def _allowed_methods(request: Request) -> list[str]:
    """Every method served at this path (Starlette names only the first route's)."""
    shapes = route_of(request.app.state.route_shapes, request.url.path)
    return sorted({method for shape in shapes for method in shape.methods})


def install(app: FastAPI) -> None:
    """Route every exception through `handle`."""
    app.add_exception_handler(Exception, handle)
    app.add_exception_handler(HTTPException, handle)  # type: ignore[arg-type]
    app.add_exception_handler(RequestValidationError, handle)  # type: ignore[arg-type]
    # Driver errors are answered inside the app like the rest (a handler only at the outer
    # Exception level answers, then re-raises, and the server drops the connection).
    for cls in (*PROBLEMS, *DRIVER_ERRORS):
        if issubclass(cls, Exception):
            app.add_exception_handler(cls, handle)
