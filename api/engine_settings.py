"""The engine's knobs from the process settings (the engine never reads the environment).

Apart from `api.app` so that `cadenza worker`, which runs the engine without the API, starts
without importing the web application.
"""

from __future__ import annotations

from api.capability_registry import capability_policy
from api.settings import Settings
from engine.config import EngineConfig, HttpPolicy, SmtpSettings


def engine_config(settings: Settings) -> EngineConfig:
    """The engine's knobs from the process settings (the engine never reads the environment)."""
    return EngineConfig(
        node_name=settings.node_name,
        max_concurrency=settings.max_concurrency,
        lease_s=settings.lease_s,
        lease_margin_s=settings.lease_margin_s,
        horizon_years=settings.horizon_years,
        retention_ok_days=settings.retention_ok_days,
        retention_failed_days=settings.retention_failed_days,
        allow_private_webhooks=settings.allow_private_webhooks,
        smtp=smtp_settings(settings),
        http=http_policy(settings),
        capabilities=capability_policy(settings),
    )


def smtp_settings(settings: Settings) -> SmtpSettings | None:
    """The operator's mail server for email notifications, if one is set."""
    if not settings.smtp_host:
        return None
    return SmtpSettings(
        host=settings.smtp_host,
        port=settings.smtp_port,
        sender=settings.smtp_from,
        username=settings.smtp_username,
        password=settings.smtp_password,
        starttls=settings.smtp_starttls,
    )


def http_policy(settings: Settings) -> HttpPolicy:
    """The operator's bounds on scripts' HTTP requests."""
    return HttpPolicy(
        schemes=frozenset(settings.http_schemes.split(",")),
        allow_private=settings.http_allow_private,
        max_calls_per_run=settings.http_max_calls_per_run,
        max_response_bytes=settings.http_max_response_bytes,
    )
