"""Capabilities of the embedding product a tenant's scripts may call (`ctx.call`)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import Field

from cadenza_client.models.base import Record


class Capability(Record):
    """A capability granted to the tenant, with the schema its arguments must match."""

    name: str
    description: str
    args_schema: dict[str, Any] = Field(description="JSON Schema (Draft 2020-12) of the args.")
    max_answer_bytes: int


class CapabilityGrant(Record):
    """The operator's grant of one capability to a tenant."""

    name: str
    granted_at: datetime
    registered: bool = Field(description="False: the operator's registry no longer has it.")
