"""One settings object: environment variables `CADENZA_*`, overridden by command-line flags.

Settings are read once, when a command starts (never at import time), and handed down: the
engine and the data layer receive plain values, they never read the environment.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from tenants.db import DEFAULT_URL


class Settings(BaseSettings):
    """Every knob of a Cadenza process; `docs/configuration.md` lists them with defaults."""

    model_config = SettingsConfigDict(env_prefix="CADENZA_", extra="forbid")

    database_url: str = Field(DEFAULT_URL, description="SQLite file or PostgreSQL URL.")
    host: str = Field("127.0.0.1", description="Address `serve` listens on.")
    port: int = Field(8000, ge=0, le=65535, description="Port `serve` listens on.")
    admin_token: str | None = Field(None, description="Operator token for /v1/admin.")
    node_name: str = Field(
        "",
        max_length=100,
        description="This node's name; empty: `<host>` (or `<host>-2`, ...), kept across restarts.",
    )
    demo: bool = Field(True, description="Create a demo tenant in an empty database.")
    log_level: Literal["debug", "info", "warning", "error"] = Field(
        "info", description="Cadenza's own records from this level up."
    )
    log_format: Literal["text", "json"] = Field(
        "text", description="Log lines as text, or as one JSON object each."
    )
    max_concurrency: int = Field(
        default_factory=lambda: os.cpu_count() or 2, ge=1, description="Sandbox runs at once."
    )
    api_workers: int = Field(
        default_factory=lambda: os.cpu_count() or 2,
        ge=1,
        le=64,
        description="API processes `serve` runs beside its engine process.",
    )
    api_nice: int = Field(
        10,
        ge=0,
        le=19,
        description="How much lower the API processes' CPU priority is than the engine "
        "process's (a nice increment): under load the engine's timers come first.",
    )
    wake_cap_s: float = Field(
        1.0,
        gt=0,
        le=3600,
        description="Longest the engine goes without looking at the queue (if a wake is lost).",
    )
    lease_s: float = Field(30.0, gt=0, description="Tenant lease length for scale-out.")
    lease_margin_s: float = Field(
        15.0, gt=0, description="A claim's lease beyond its run's timeout, until renewed."
    )
    stop_grace_s: float = Field(
        30.0, ge=0, description="How long a stop lets started runs finish before interrupting."
    )
    horizon_years: int = Field(10, ge=1, le=100, description="UNTIL cap of open-ended rules.")
    retention_ok_days: int = Field(30, ge=1, description="Days successful runs are kept.")
    retention_failed_days: int = Field(90, ge=1, description="Days failed runs are kept.")
    allow_private_webhooks: bool = Field(
        False, description="Allow webhook URLs on loopback/private addresses."
    )
    smtp_host: str = Field(
        "", description="The SMTP server email notifications go through (empty: no email)."
    )
    smtp_port: int = Field(587, ge=1, le=65535, description="The SMTP server's port.")
    smtp_from: str = Field(
        "cadenza@localhost", description="The From address of notification emails."
    )
    smtp_username: str = Field("", description="SMTP login (empty: no login).")
    smtp_password: str = Field("", repr=False, description="SMTP password, with the login.")
    smtp_starttls: bool = Field(True, description="Upgrade the SMTP connection with STARTTLS.")
    http_schemes: str = Field(
        "https",
        pattern=r"^(https?)(,https?)?$",
        description="Schemes tenants may allow scripts to call with ctx.http (e.g. https,http).",
    )
    http_allow_private: bool = Field(
        False, description="Let ctx.http reach loopback/private/link-local addresses."
    )
    http_max_calls_per_run: int = Field(20, ge=1, le=1000, description="ctx.http calls a run.")
    http_max_response_bytes: int = Field(
        60 * 1024, ge=1024, le=60 * 1024, description="Largest response body ctx.http returns."
    )
    capabilities_file: Path | None = Field(
        None, description="JSON registry of the capabilities scripts may call with ctx.call."
    )
    capability_signing_key: str | None = Field(
        None,
        min_length=16,
        description="Signs calls to capability endpoints (X-Cadenza-Signature).",
    )
    capability_max_calls_per_run: int = Field(
        20, ge=1, le=1000, description="ctx.call calls a run."
    )
    capability_max_calls_per_minute: int = Field(
        120, ge=1, description="ctx.call calls of one tenant a minute, over all engine nodes."
    )
    max_body_bytes: int = Field(1_048_576, ge=1024, description="Largest request body.")
    secret_keys: str | None = Field(
        None, description="Operator keys sealing stored secrets, comma-separated, newest first."
    )
    secret_key_file: Path | None = Field(
        None, description="File of operator keys (default on SQLite: <database>.key)."
    )
    metrics_address: str | None = Field(
        None,
        pattern=r"^[^\s:]+:\d{1,5}$",
        description="HOST:PORT of a separate listener serving /metrics without a token.",
    )
    metrics_tenant_labels: bool = Field(
        False, description="Also count runs per tenant (one series per tenant and outcome)."
    )
    auth_failures_per_minute: int = Field(
        20, ge=1, le=10_000, description="Failed authentications per client address per minute."
    )
    tracing: Literal["none", "otlp", "console"] = Field(
        "none", description="Export OpenTelemetry traces (needs the `otel` extra)."
    )


def load_settings(**overrides: Any) -> Settings:
    """Settings from the environment, with the non-None `overrides` (CLI flags) on top."""
    return Settings(**{k: v for k, v in overrides.items() if v is not None})
