"""The RFC 9457 problem body, for the OpenAPI document of every error response."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class FieldError(BaseModel):
    field: str = Field(description="Which field is wrong: a dotted path, e.g. `quotas.max_rules`.")
    message: str
    position: int | None = Field(None, description="Character offset of the bad part, from 0.")
    line: int | None = Field(None, description="Line of a script error, from 1.")
    hint: str | None = Field(None, description="How to fix it.")
    in_: str | None = Field(None, alias="in", description="body, query, path or header.")


class Problem(BaseModel):
    """An error: `type` names the kind (stable), `detail` says what happened in this case."""

    model_config = ConfigDict(extra="allow")

    type: str = Field(examples=["/problems/not-found"])
    title: str
    status: int
    detail: str
    instance: str | None = None
    errors: list[FieldError] | None = None
    current_version: int | None = Field(None, description="With 412: the rule's version now.")
    quota: str | None = Field(None, description="With quota-exceeded: which quota.")


_DESCRIPTIONS = {
    401: "Missing, unknown or revoked credentials.",
    403: "The key's role does not allow this.",
    404: "No such object for this tenant.",
    409: "Conflict with the object's current state.",
    412: "If-Match names a version that is no longer current.",
    413: "The request body is too large.",
    422: "The input is invalid; `errors` says where.",
    429: "Rate limited; retry after `Retry-After` seconds.",
    503: "Not available right now.",
}


def problem_docs(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """`responses=` entries documenting problem answers with these statuses.

    FastAPI files them under application/json; `api.openapi` moves them to problem+json.
    """
    return {status: {"model": Problem, "description": _DESCRIPTIONS[status]} for status in statuses}
