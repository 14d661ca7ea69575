"""The audit log: one row per change committed through the API."""

from __future__ import annotations

from datetime import datetime

from pydantic import AwareDatetime, Field

from cadenza_client.models.base import Input, Record


class AuditEntry(Record):
    """Who changed which object, through which route, when; digests, never values."""

    id: int
    tenant_id: str
    at: datetime
    actor: str
    actor_prefix: str | None
    method: str
    route: str
    object_kind: str
    object_id: str
    before_digest: str | None
    after_digest: str
    request_id: str


class AuditFilter(Input):
    """Which rows of the log to read; only the fields given filter."""

    object_kind: str | None = None
    object_id: str | None = None
    actor: str | None = Field(None, description="A key id (`k_…`) or `operator`.")
    since: AwareDatetime | None = None
    until: AwareDatetime | None = None
