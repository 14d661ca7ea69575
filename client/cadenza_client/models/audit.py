"""The audit log: one row per change committed through the API."""

from __future__ import annotations

from datetime import datetime

from cadenza_client.models.base import Record


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
