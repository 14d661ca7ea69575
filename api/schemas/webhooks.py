"""Where a tenant's events are delivered, and the secrets that sign each delivery."""

from __future__ import annotations

from datetime import datetime

from pydantic import Field

from api.schemas.common import Input, Public
from tenants.settings import DEFAULT_OVERLAP, MAX_OVERLAP, MAX_URL_CHARS


class WebhookUpdate(Input):
    url: str | None = Field(
        max_length=MAX_URL_CHARS,
        description="http(s) URL events are POSTed to; null stops delivery.",
        examples=["https://example.com/cadenza-events"],
    )


class WebhookPublic(Public):
    url: str | None
    secret_hint: str | None = Field(
        description="First characters of the current signing secret (null: none yet)."
    )
    previous_secret_hint: str | None = Field(
        description="First characters of the previous secret, while it still signs."
    )
    previous_secret_retires_at: datetime | None = Field(
        description="Until when the previous secret signs deliveries beside the current one."
    )


class SecretRotate(Input):
    overlap_s: int = Field(
        int(DEFAULT_OVERLAP.total_seconds()),
        strict=True,
        ge=0,
        le=int(MAX_OVERLAP.total_seconds()),
        description="How long the current secret keeps signing beside the new one (0: stop now).",
    )


class SecretCreated(Public):
    secret: str = Field(description="The new signing secret; shown once.")
    previous_secret_retires_at: datetime | None = Field(
        description="Until when the previous secret also signs (null: it stopped now)."
    )
