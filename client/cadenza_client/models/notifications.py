"""Notification routes: which outcomes of the tenant's rules are sent where."""

from __future__ import annotations

from datetime import datetime

from pydantic import Field

from cadenza_client.models.base import Record
from cadenza_client.models.enums import (
    NotificationChannel,
    NotificationDeliveryStatus,
    NotificationEvent,
)


class NotificationDelivery(Record):
    """How the last attempt at a route's newest attempted notification ended."""

    status: NotificationDeliveryStatus
    attempted_at: datetime
    error: str | None


class NotificationRoute(Record):
    """A stored route; `rule_id` None applies it to every rule of the tenant."""

    id: int
    rule_id: str | None
    events: tuple[NotificationEvent, ...]
    channel: NotificationChannel
    target: str = Field(description="The email address or URL; empty for the webhook channel.")
    digest_minutes: int | None = Field(description="None: each message is sent as it happens.")
    created_at: datetime
    last_delivery: NotificationDelivery | None = Field(
        None, description="None: no notification was attempted for it yet."
    )
