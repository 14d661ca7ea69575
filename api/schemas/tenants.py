"""Tenants as the tenant sees itself (`GET /v1/tenant`) and as the operator manages them."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import Field, StrictBool

from api.schemas.common import Input, Public, TimeZone
from tenants.keys import Role
from tenants.registry import TenantStatus

TenantName = Annotated[
    str,
    Field(min_length=1, max_length=100, pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$", examples=["acme"]),
]


class Quotas(Public):
    max_rules: int
    max_concurrency: int
    max_timeout_ms: int
    max_memory_mb: int
    min_interval_s: int
    allow_secondly: bool
    max_runs_per_day: int
    max_cpu_s_per_day: int
    requests_per_minute: int


class QuotasUpdate(Input):
    """Only the quotas given change."""

    max_rules: int | None = Field(None, strict=True, ge=0, le=10_000_000)
    max_concurrency: int | None = Field(None, strict=True, ge=1, le=1000)
    max_timeout_ms: int | None = Field(None, strict=True, ge=100, le=3_600_000)
    max_memory_mb: int | None = Field(None, strict=True, ge=16, le=65_536)
    min_interval_s: int | None = Field(None, strict=True, ge=1, le=86_400)
    allow_secondly: StrictBool | None = None
    max_runs_per_day: int | None = Field(None, strict=True, ge=0, le=1_000_000_000)
    max_cpu_s_per_day: int | None = Field(None, strict=True, ge=0, le=1_000_000_000)
    requests_per_minute: int | None = Field(None, strict=True, ge=1, le=1_000_000)


class Usage(Public):
    day: str = Field(description="The UTC day counted, YYYY-MM-DD.")
    runs: int
    cpu_ms: int


class TenantPublic(Public):
    id: str
    name: str
    status: TenantStatus
    created_at: datetime
    webhook_url: str | None
    quotas: Quotas
    default_timezone: str = Field(description="The zone of a rule or preview that names none.")


class TenantSelf(TenantPublic):
    """The caller's tenant, with today's usage against its quotas and the caller's role."""

    usage_today: Usage
    role: Role


class TenantSettings(Input):
    """What a tenant's admin sets for the whole tenant; only the fields given change."""

    default_timezone: TimeZone | None = Field(
        None,
        description="The zone of a rule or preview that names none; rules saved before keep "
        "theirs.",
    )


class TenantCreate(Input):
    name: TenantName
    role: Role = Field(Role.ADMIN, description="Role of the first API key.")
    quotas: QuotasUpdate | None = None


class TenantUpdate(Input):
    name: TenantName | None = None
    quotas: QuotasUpdate | None = None


class TenantCreated(TenantPublic):
    api_key: str = Field(description="The first API key; shown once, never again.")
