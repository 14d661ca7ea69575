"""The API's own exception root: problems that exist only because HTTP does.

Each subclass's docstring is its default message; `api/problems.py` maps each to a status.
"""

from __future__ import annotations


class ApiError(Exception):
    """The request cannot be served."""

    def __init__(self, message: str | None = None, *, field: str | None = None) -> None:
        self.field = field
        super().__init__(message or (self.__doc__ or "").strip().splitlines()[0])


class Unauthorized(ApiError):
    """Missing or invalid credentials: send `Authorization: Bearer <API key>`."""


class Forbidden(ApiError):
    """Your key's role does not allow this; ask an admin of your tenant for an editor key."""


class RateLimited(ApiError):
    """Too many requests for this tenant: wait `Retry-After` seconds and try again."""

    def __init__(self, retry_after_s: int, limit_per_minute: int) -> None:
        self.retry_after_s = retry_after_s
        super().__init__(
            f"more than {limit_per_minute} requests per minute for this tenant: "
            f"retry after {retry_after_s} s (the operator can raise requests_per_minute)"
        )


class AuthThrottled(ApiError):
    """This client address failed to authenticate too often: wait `Retry-After` seconds."""

    def __init__(self, retry_after_s: int, failures_per_minute: int) -> None:
        self.retry_after_s = retry_after_s
        super().__init__(
            f"more than {failures_per_minute} failed authentications per minute from your "
            f"address: retry after {retry_after_s} s with a valid API key or operator token"
        )


class PayloadTooLarge(ApiError):
    """The request body is larger than the server accepts."""


class BadCursor(ApiError):
    """The cursor is not one this list handed out: start again without `cursor`."""

    def __init__(self, message: str | None = None) -> None:
        super().__init__(message, field="cursor")


class EngineUnavailable(ApiError):
    """The scheduling engine is not running in this process."""


class BadParameter(ApiError):
    """A parameter is not acceptable; `field` says which."""
