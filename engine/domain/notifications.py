"""What a notification route is: which outcomes of a rule are sent, and where.

A route with no rule applies to every rule of its tenant; a rule's own routes add to those
(a rule never silences a tenant route: the operator of the tenant decides what it hears).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum


class NotificationEvent(StrEnum):
    """The outcomes a route can ask for."""

    FAILED = "failed"  # the first failure of a failing streak
    RECOVERED = "recovered"  # the first success after a notified failure
    SKIPPED = "skipped"  # an occurrence skipped by the overlap or misfire policy
    EXPIRED = "expired"  # a one-off that expired before it could run


class NotificationChannel(StrEnum):
    """Where a route sends: the tenant webhook, an email address, a Slack-compatible URL."""

    WEBHOOK = "webhook"
    EMAIL = "email"
    SLACK = "slack"


@dataclass(frozen=True)
class RouteSpec:
    """A route as a tenant writes it; `target` is "" for the webhook channel."""

    events: tuple[NotificationEvent, ...]
    channel: NotificationChannel
    target: str
    rule_id: str | None
    digest_minutes: int | None


@dataclass(frozen=True)
class NotificationRoute:
    """A stored route."""

    id: int
    rule_id: str | None
    events: tuple[NotificationEvent, ...]
    channel: NotificationChannel
    target: str
    digest_minutes: int | None
    created_at: datetime
