"""What a tenant lends its scripts: secrets (written, listed by name, never read back) and
the origins `ctx.http` may call."""

from __future__ import annotations

from datetime import datetime

from pydantic import Field

from api.schemas.common import Input, Public
from tenants.tenant_secrets import MAX_VALUE_BYTES, MIN_VALUE_CHARS


class SecretPut(Input):
    value: str = Field(
        min_length=MIN_VALUE_CHARS,
        max_length=MAX_VALUE_BYTES,
        description="The secret's value; never shown again by the API or the UI.",
    )

    model_config = {"json_schema_extra": {"examples": [{"value": "sk_live_0123456789abcdef"}]}}


class SecretPublic(Public):
    name: str = Field(max_length=64)
    updated_at: datetime = Field(description="When the value was last set.")


class HttpAllowListPut(Input):
    entries: list[str] = Field(
        max_length=50,
        description="Origins scripts may call: scheme://host[:port]; a host may start with '*.'.",
    )

    model_config = {
        "json_schema_extra": {"examples": [{"entries": ["https://api.frankfurter.app"]}]}
    }


class HttpAllowListPublic(Public):
    entries: list[str] = Field(description="Normalised: scheme://host:port.")
    schemes: list[str] = Field(description="The schemes the operator allows.")
