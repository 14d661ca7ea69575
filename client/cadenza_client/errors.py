"""Everything the client raises: one root, `CadenzaError`, and a class per problem type.

The server answers every error as an RFC 9457 problem (`application/problem+json`): a stable
`type` such as `/problems/stale-version`, the `status`, a human `detail` and, for input errors,
`errors` naming each offending field. `problems.problem_from` turns it into the subclass of
`ApiProblem` for its type, so callers catch what they can act on (`StaleVersion`,
`RateLimited`, `NotFound`) and read `field` to point at the input to fix.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


class CadenzaError(Exception):
    """The Cadenza client could not do what was asked."""


class InvalidId(CadenzaError, ValueError):
    """An id or key that cannot name anything (empty, or an id holding `/`); nothing was sent."""


class TransportFailed(CadenzaError):
    """The server could not be reached, or the connection broke before an answer came."""

    def __init__(self, message: str, *, attempts: int) -> None:
        self.attempts = attempts
        super().__init__(message)


class UnexpectedAnswer(CadenzaError):
    """The server answered something this client cannot read (a proxy's page, a newer API)."""


@dataclass(frozen=True)
class FieldError:
    """One offending input: where (`field`, a dotted path; `position`, `line`) and why."""

    field: str
    message: str
    position: int | None = None
    line: int | None = None
    hint: str | None = None
    location: str | None = None
    """body, query, path or header (`in` on the wire)."""


class ApiProblem(CadenzaError):
    """The server refused the request; `type`, `status` and `detail` say why."""

    def __init__(
        self,
        *,
        type: str,
        status: int,
        title: str,
        detail: str,
        errors: tuple[FieldError, ...] = (),
        body: dict[str, Any] | None = None,
    ) -> None:
        self.type = type
        self.status = status
        self.title = title
        self.detail = detail
        self.errors = errors
        self.body = body or {}
        super().__init__(f"{status} {type}: {detail}")

    @property
    def field(self) -> str | None:
        """The first offending field, if the problem names one (e.g. `schedule`)."""
        return self.errors[0].field if self.errors else None


class Unauthorized(ApiProblem):
    """No key, an unknown or a revoked key (or the wrong operator token)."""


class Forbidden(ApiProblem):
    """The key's role is too low for this, or the tenant is suspended."""


class NotFound(ApiProblem):
    """No such object for this tenant (another tenant's objects look the same)."""


class MethodNotAllowed(ApiProblem):
    """The route does not take this method."""


class Conflict(ApiProblem):
    """The object exists already (e.g. a tenant of that name)."""


class InvalidState(ApiProblem):
    """Not possible in the object's current state (e.g. cancelling a finished action)."""


class StaleVersion(ApiProblem):
    """The rule changed since it was read: read it again, then retry the change."""

    @property
    def current_version(self) -> int | None:
        """The rule's version now."""
        value = self.body.get("current_version")
        return value if isinstance(value, int) else None


class PayloadTooLarge(ApiProblem):
    """The request body is larger than the server accepts."""


class InvalidInput(ApiProblem):
    """Some input is wrong; `errors` (and `field`) say where."""


class ValidationFailed(InvalidInput):
    """The body or a parameter has the wrong shape, type or bounds."""


class InvalidSchedule(InvalidInput):
    """The schedule does not parse or never occurs; `errors[0].position` points at it."""


class InvalidRule(InvalidInput):
    """A rule field the engine refuses (schedule, script...)."""


class QuotaExceeded(InvalidInput):
    """Over a tenant quota; `quota` names it."""

    @property
    def quota(self) -> str | None:
        value = self.body.get("quota")
        return value if isinstance(value, str) else None


class InvalidCursor(InvalidInput):
    """A cursor this list did not hand out."""


class RangeTooLarge(InvalidInput):
    """A time window with too many occurrences."""


class RateLimited(ApiProblem):
    """Over the tenant's requests per minute, and still so after the client's retries."""

    def __init__(self, *, retry_after_s: float | None, **problem: Any) -> None:
        self.retry_after_s = retry_after_s
        super().__init__(**problem)


class Unavailable(ApiProblem):
    """The database or the engine is not available right now."""


class ServerError(ApiProblem):
    """The server failed (500 is always a bug in Cadenza: please report it)."""
