"""Notification routes: `NotificationRouteCreate` in, `NotificationRoutePublic` out.

Bounds and patterns live here so the OpenAPI states them; whether `target` suits the channel
(an address for email, a public http(s) URL for Slack, nothing for the webhook) is checked by
`api.routes.notifications`, which names the field.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import Field

from api.schemas.common import Input, Public
from engine.domain.notifications import (
    NotificationChannel,
    NotificationDeliveryStatus,
    NotificationEvent,
)

#: A plain address (local@domain.tld), without display name or spaces.
EMAIL_PATTERN = r"^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$"
RULE_ID_PATTERN = r"^[A-Za-z0-9_.-]{1,40}$"
#: The longest digest interval: one a day.
MAX_DIGEST_MINUTES = 1440


class NotificationRouteCreate(Input):
    events: list[NotificationEvent] = Field(
        min_length=1,
        max_length=4,
        description="The outcomes sent: `failed` (once per failing streak), `recovered`, "
        "`skipped` (by the overlap or misfire policy), `expired` (a one-off).",
        examples=[["failed", "recovered"]],
    )
    channel: NotificationChannel = Field(
        description="`webhook` (your tenant webhook), `email` or `slack` (a Slack-compatible "
        "incoming webhook)."
    )
    target: str = Field(
        "",
        max_length=2000,
        description="The email address (`email`) or the incoming-webhook URL (`slack`); "
        "empty for `webhook`.",
        examples=["ops@example.com"],
    )
    rule_id: str | None = Field(
        None,
        pattern=RULE_ID_PATTERN,
        description="Only this rule's outcomes; leave out for every rule of the tenant.",
    )
    digest_minutes: int | None = Field(
        None,
        ge=1,
        le=MAX_DIGEST_MINUTES,
        description="Gather the messages into one digest every this many minutes; leave out "
        "to send each as it happens.",
    )

    model_config = {
        "json_schema_extra": {
            "examples": [
                {"events": ["failed", "recovered"], "channel": "email", "target": "ops@example.com"}
            ]
        }
    }


class NotificationDeliveryPublic(Public):
    status: NotificationDeliveryStatus = Field(
        description="delivered; pending: retrying after a failed attempt; failed: for good."
    )
    attempted_at: datetime
    error: str | None = Field(description="What went wrong at that attempt, if anything.")


class NotificationRoutePublic(Public):
    id: int
    rule_id: str | None = Field(description="None: the route applies to every rule.")
    events: list[NotificationEvent]
    channel: NotificationChannel
    target: str
    digest_minutes: int | None = Field(description="None: each message is sent as it happens.")
    created_at: datetime
    last_delivery: NotificationDeliveryPublic | None = Field(
        None, description="The last attempt at the newest notification sent; None: none yet."
    )
