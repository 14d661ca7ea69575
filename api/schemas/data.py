"""The tenant's key-value data, as scripts see it."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import Field

from api.schemas.common import Input, Public
from tenants.kv import MAX_KEY_CHARS


class ItemPut(Input):
    nul_allowed = frozenset({"value"})
    value: Any = Field(description="Any JSON value, at most 64 KiB once encoded.")

    model_config = {"json_schema_extra": {"examples": [{"value": {"count": 3}}]}}


class ItemPublic(Public):
    key: str = Field(max_length=MAX_KEY_CHARS)
    value: Any
    updated_at: datetime
