"""The audit log as the API shows it: who changed which object, through which route, when."""

from __future__ import annotations

from datetime import datetime

from pydantic import Field

from api.schemas.common import Public

DIGEST_PATTERN = r"^[0-9a-f]{64}$"


class AuditEntryPublic(Public):
    id: int = Field(description="Position in the log; rows are only ever appended.")
    tenant_id: str
    at: datetime = Field(description="When the change committed.")
    actor: str = Field(description="The API key's id (`k_…`), or `operator`.")
    actor_prefix: str | None = Field(description="The key's prefix; null for the operator.")
    method: str = Field(description="The HTTP method of the change.")
    route: str = Field(description="The route template, e.g. `/v1/rules/{rule_id}`.")
    object_kind: str = Field(description="What changed: rule, action, key, secret, data, ...")
    object_id: str = Field(description="Its id (a key for data, a name for a secret).")
    before_digest: str | None = Field(
        json_schema_extra={"pattern": DIGEST_PATTERN},
        description="The object's previous `after_digest`; null for its first change.",
    )
    after_digest: str = Field(
        json_schema_extra={"pattern": DIGEST_PATTERN},
        description="SHA-256 of what the change wrote, chained to `before_digest`; never a value.",
    )
    request_id: str = Field(description="The request's `X-Request-Id`.")
