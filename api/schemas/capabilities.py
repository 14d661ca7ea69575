"""Capabilities of the embedding product: what a tenant may call (`ctx.call`), and its grants."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import Field

from api.schemas.common import Public


class CapabilityPublic(Public):
    name: str = Field(max_length=130, description="What a script passes to ctx.call.")
    description: str
    args_schema: dict[str, Any] = Field(
        description="The JSON Schema (Draft 2020-12) a call's arguments must match."
    )
    max_answer_bytes: int = Field(description="The largest answer a call returns, as JSON.")


class CapabilityGrantPublic(Public):
    name: str = Field(max_length=130)
    granted_at: datetime
    registered: bool = Field(
        description="False when the operator's registry no longer has it: it cannot be called."
    )
