"""Where a tenant's events are delivered, and the secret that signs each delivery."""

from __future__ import annotations

from pydantic import Field

from api.schemas.common import Input, Public
from tenants.settings import MAX_URL_CHARS


class WebhookUpdate(Input):
    url: str | None = Field(
        max_length=MAX_URL_CHARS,
        description="http(s) URL events are POSTed to; null stops delivery.",
        examples=["https://example.com/cadenza-events"],
    )


class WebhookPublic(Public):
    url: str | None
    secret_hint: str = Field(description="First characters of the current signing secret.")


class SecretCreated(Public):
    secret: str = Field(description="The new signing secret; shown once.")
