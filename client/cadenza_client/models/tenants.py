"""Tenants, their quotas, API keys, webhook settings and key-value data."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import Field

from cadenza_client.models.base import Input, Record
from cadenza_client.models.enums import Role, TenantStatus


class Quotas(Record):
    """A tenant's limits."""

    max_rules: int
    max_concurrency: int
    max_timeout_ms: int
    max_memory_mb: int
    min_interval_s: int
    allow_secondly: bool
    max_runs_per_day: int
    max_cpu_s_per_day: int
    requests_per_minute: int


class QuotaChanges(Input):
    """Quotas to change (operator); only those given are sent."""

    max_rules: int | None = None
    max_concurrency: int | None = None
    max_timeout_ms: int | None = None
    max_memory_mb: int | None = None
    min_interval_s: int | None = None
    allow_secondly: bool | None = None
    max_runs_per_day: int | None = None
    max_cpu_s_per_day: int | None = None
    requests_per_minute: int | None = None


class Usage(Record):
    """What a tenant used on one UTC day."""

    day: str
    runs: int
    cpu_ms: int


class Tenant(Record):
    """A tenant as the operator sees it."""

    id: str
    name: str
    status: TenantStatus
    created_at: datetime
    webhook_url: str | None
    quotas: Quotas
    default_timezone: str = Field("UTC", description="The zone of a rule that names none.")


class TenantCreated(Tenant):
    """A new tenant and its first API key, which is shown only here."""

    api_key: str


class TenantSelf(Tenant):
    """The caller's own tenant, today's usage and the calling key's role."""

    usage_today: Usage
    role: Role


class ApiKey(Record):
    """An API key as listed: its prefix, never its secret."""

    id: str
    name: str
    prefix: str
    role: Role
    created_at: datetime
    last_used_at: datetime | None
    revoked_at: datetime | None


class KeyCreated(ApiKey):
    """A new key with its secret, which is shown only here."""

    secret: str


class Webhook(Record):
    """Where events are delivered, and the first characters of the signing secrets."""

    url: str | None
    secret_hint: str | None = Field(description="The current secret's start (None: none yet).")
    previous_secret_hint: str | None = Field(
        description="The previous secret's start, while it still signs."
    )
    previous_secret_retires_at: datetime | None = Field(
        description="Until when the previous secret signs deliveries beside the current one."
    )


class WebhookSecret(Record):
    """A new signing secret, shown once."""

    secret: str
    previous_secret_retires_at: datetime | None = Field(
        description="Until when the previous secret also signs (None: it stopped now)."
    )


class Item(Record):
    """One key-value item of the tenant's data."""

    key: str
    value: Any = Field(description="Any JSON value.")
    updated_at: datetime


class Secret(Record):
    """One of the tenant's script secrets: its name, never its value."""

    name: str
    updated_at: datetime = Field(description="When the value was last set.")


class HttpAllowList(Record):
    """The origins the tenant's scripts may call with `ctx.http.request`."""

    entries: tuple[str, ...] = Field(description="Normalised: scheme://host:port.")
    schemes: tuple[str, ...] = Field(description="The schemes the operator allows.")
