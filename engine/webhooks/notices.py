"""Sending the notification outbox: each due message to its route's channel, retried with the
events' backoff and bounds (`engine.webhooks.attempts`), every attempt recorded on its rows.

The tenant webhook channel is signed like the events (`engine.webhooks.signing`); a Slack URL
is called pinned like a webhook (private addresses refused unless the operator allows them);
email goes through the operator's SMTP server (`engine.webhooks.smtp`).
"""

from __future__ import annotations

import asyncio
import logging

import httpx

from engine.deps import Deps
from engine.domain.notifications import NotificationChannel
from engine.ops import metrics
from engine.store import deliveries
from engine.store import notification_outbox as outbox
from engine.store.tables import notifications
from engine.webhooks.attempts import REFUSED, STATUS, due_now, hold_until, post, settle
from engine.webhooks.notice_messages import (
    Message,
    messages_of,
    slack_body,
    subject_of,
    text_of,
    webhook_body,
)
from engine.webhooks.signing import Signing, signed_headers, signing_for
from engine.webhooks.smtp import send_mail

log = logging.getLogger("cadenza.engine")
#: Most notifications held at once by a node (a digest of more is sent as several messages).
NOTICE_BATCH = 50
NO_WEBHOOK = f"{REFUSED}the tenant has no webhook (PUT /v1/webhook)"


async def deliver_notices_due(deps: Deps, client: httpx.AsyncClient) -> int:
    """Send every notification due now (one batch); how many rows were attempted."""
    now, ids = await due_now(deps, notifications, NOTICE_BATCH)
    if not ids:
        return 0
    async with deps.write() as conn:
        won = await deliveries.hold(conn, notifications, ids, now, hold_until(deps.config, now))
        rows = await outbox.held(conn, won)
        hooked = {r["tenant_id"] for r in rows if r["channel"] == NotificationChannel.WEBHOOK}
        signing = await signing_for(conn, deps.secrets, hooked, now)
    by_route: dict[int, list[Message]] = {}
    for message in messages_of(rows):
        by_route.setdefault(message.route_id, []).append(message)
    await asyncio.gather(*(_deliver_in_order(deps, client, m, signing) for m in by_route.values()))
    return len(rows)


async def _deliver_in_order(
    deps: Deps, client: httpx.AsyncClient, messages: list[Message], signing: dict[str, Signing]
) -> None:
    """One route's messages one after the other, oldest first (routes side by side): a
    `failed` reaches a route before the `recovered` that ends its streak."""
    for message in messages:
        await _deliver(deps, client, message, signing.get(message.tenant_id))


async def _deliver(
    deps: Deps, client: httpx.AsyncClient, message: Message, signing: Signing | None
) -> None:
    """One attempt at one message, recorded on all its rows."""
    attempts = max(row["delivery_attempts"] for row in message.rows) + 1
    now = deps.clock.now()
    error = await _send(deps, client, message, signing)
    outcome, next_at = settle(deps.config, error, attempts, now)
    if error is not None:
        log.warning(
            "notification %s to route %s failed, now %s: %s",
            message.ids,
            message.route_id,
            STATUS[outcome],
            error,
            extra={"tenant_id": message.tenant_id, "route_id": message.route_id},
        )
    metrics.NOTIFICATIONS.labels(channel=message.channel, outcome=outcome).inc()
    async with deps.write() as conn:
        await deliveries.record_attempt(
            conn, notifications, message.ids, STATUS[outcome], attempts, next_at, error, now
        )


async def _send(
    deps: Deps, client: httpx.AsyncClient, message: Message, signing: Signing | None
) -> str | None:
    """Send the message on its channel; None once it was accepted, else what went wrong."""
    if message.channel is NotificationChannel.EMAIL:
        return await send_mail(
            deps.config.smtp, message.target, subject_of(message), text_of(message)
        )
    if message.channel is NotificationChannel.SLACK:
        headers = {"Content-Type": "application/json"}
        return await post(deps.config, client, message.target, slack_body(message), headers)
    return await _send_webhook(deps, client, message, signing or Signing())


async def _send_webhook(
    deps: Deps, client: httpx.AsyncClient, message: Message, signing: Signing
) -> str | None:
    url = message.rows[0]["webhook_url"]
    if not url:
        return NO_WEBHOOK
    if signing.problem is not None:
        return signing.problem
    body = webhook_body(message)
    headers = signed_headers(signing.secrets, deps.clock.now(), body)
    headers["X-Cadenza-Notification-Ids"] = ",".join(map(str, message.ids))
    return await post(deps.config, client, url, body, headers)
