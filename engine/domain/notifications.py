"""What a notification route is: which outcomes of a rule are sent, and where.

A route with no rule applies to every rule of its tenant; a rule's own routes add to those
(a rule never silences a tenant route: the operator of the tenant decides what it hears).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from engine.domain.due import RuleSnapshot
from engine.domain.records import SkipReason


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


class NotificationDeliveryStatus(StrEnum):
    """Where a notification's delivery is (`notifications.delivery_status`)."""

    PENDING = "pending"  # not attempted yet, or retrying after a failed attempt
    DELIVERED = "delivered"
    FAILED = "failed"  # for good: out of attempts, or refused


@dataclass(frozen=True)
class LastDelivery:
    """The newest attempted notification of a route: how its last attempt ended."""

    status: NotificationDeliveryStatus
    attempted_at: datetime
    error: str | None


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
    #: None: nothing was sent to it yet.
    last_delivery: LastDelivery | None = None


@dataclass(frozen=True)
class Notice:
    """Something a route may be told of, written with the outcome it tells of."""

    tenant_id: str
    event: NotificationEvent
    rule_id: str | None
    at: datetime
    #: What the message says beyond the event: the rule's name, the error, the times.
    payload: dict[str, Any]
    action_id: int | None = None
    run_id: int | None = None


#: The skips a `skipped` notice tells of: those of a policy (overlap, misfire, the tenant's
#: quota), not those a person asked for (a pause, an edit, a deletion, a cancel).
POLICY_SKIPS = frozenset(
    {SkipReason.OVERLAP, SkipReason.MISFIRE, SkipReason.GRACE, SkipReason.QUOTA}
)


def notice_payload(
    rule: RuleSnapshot | None, scheduled_at: datetime, reason: str | None
) -> dict[str, Any]:
    """What a skipped or expired notice says of its occurrence."""
    name = rule.name if rule else None
    return {"rule_name": name, "scheduled_at": scheduled_at.isoformat(), "reason": reason}


@dataclass(frozen=True)
class Streak:
    """A rule's failing streak: whether its last final outcome was a failure, and whether the
    `failed` of that streak went to at least one route (only then is its end `recovered`)."""

    failing: bool = False
    notified: bool = False


def streak_event(streak: Streak, succeeded: bool) -> NotificationEvent | None:
    """What a final outcome tells: the first failure of a streak `failed`, the success that
    ends a notified streak `recovered`; anything else nothing (one message per streak)."""
    if succeeded:
        return NotificationEvent.RECOVERED if streak.notified else None
    return None if streak.failing else NotificationEvent.FAILED


def next_streak(streak: Streak, succeeded: bool, routed: bool) -> Streak:
    """The streak after a final outcome; `routed`: its notice reached at least one route."""
    if succeeded:
        return Streak()
    return streak if streak.failing else Streak(failing=True, notified=routed)


def digest_due(at: datetime, digest_minutes: int | None) -> datetime:
    """When a notice made at `at` is due: at once, or at the end of its route's digest
    window (windows aligned on the epoch, so every node cuts them alike)."""
    if digest_minutes is None:
        return at
    window_s = digest_minutes * 60
    start = int(at.timestamp()) // window_s * window_s
    return datetime.fromtimestamp(start + window_s, tz=UTC)
