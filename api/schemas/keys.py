"""API keys: listed by prefix, created with their secret shown once."""

from __future__ import annotations

from datetime import datetime

from pydantic import Field

from api.schemas.common import Input, Public
from tenants.keys import Role


class KeyCreate(Input):
    name: str = Field("", max_length=100, description="A label, e.g. who uses the key.")
    role: Role = Role.VIEWER


class KeyPublic(Public):
    id: str
    name: str
    prefix: str = Field(description="The first characters of the secret, to recognise it.")
    role: Role
    created_at: datetime
    last_used_at: datetime | None
    revoked_at: datetime | None


class KeyCreated(KeyPublic):
    secret: str = Field(description="The API key; shown once, never stored.")
