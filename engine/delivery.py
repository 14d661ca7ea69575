"""Webhook delivery of the events outbox: POST each event to its tenant's URL, signed with
HMAC-SHA256, retried with capped exponential backoff; every attempt is recorded on the event.

Signature: header `X-Cadenza-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret,
"<t>.<body>")>`; the receiver recomputes it with the tenant's webhook secret and rejects old
timestamps. URLs resolving to loopback, private, link-local or reserved addresses are refused
unless the operator allows them (`allow_private_webhooks`).
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import ipaddress
import json
import logging
import socket
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

import httpx

from engine import metrics
from engine.deps import Deps
from engine.policies import retry_delay
from engine.store import deliveries

log = logging.getLogger("cadenza.engine")
SIGNATURE_HEADER = "X-Cadenza-Signature"
REFUSED = "refused: "
#: How often a node looks for events to deliver, and how many it takes at once.
DELIVERY_POLL_S = 0.5
DELIVERY_BATCH = 50


class WebhookRefused(Exception):
    """The webhook URL may not be called: the message says why."""


def sign(secret: str, timestamp: int, body: bytes) -> str:
    digest = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256)
    return f"t={timestamp},v1={digest.hexdigest()}"


def body_of(event: Mapping[str, Any]) -> bytes:
    document = {
        "id": event["id"],
        "type": event["type"],
        "payload": event["payload"],
        "source": event["source"],
        "rule_id": event["rule_id"],
        "action_id": event["action_id"],
        "run_id": event["run_id"],
        "created_at": event["created_at"].isoformat(),
    }
    return json.dumps(document, separators=(",", ":")).encode()


async def check_url(url: str, allow_private: bool) -> None:
    """Refuse non-HTTP URLs and, unless allowed, hosts resolving to non-public addresses."""
    parts = urlsplit(url)
    if parts.scheme not in {"http", "https"} or not parts.hostname:
        raise WebhookRefused(f"webhook URL {url!r} is not an http(s) URL")
    if allow_private:
        return
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        infos = await asyncio.get_running_loop().getaddrinfo(
            parts.hostname, port, type=socket.SOCK_STREAM
        )
    except OSError as exc:
        raise WebhookRefused(f"cannot resolve {parts.hostname}: {exc}") from exc
    for info in infos:
        address = ipaddress.ip_address(info[4][0])
        if not address.is_global:
            raise WebhookRefused(
                f"{parts.hostname} resolves to {address}, a private or local address; "
                "the operator must allow private webhooks to use it"
            )


async def deliver(deps: Deps, client: httpx.AsyncClient, event: Mapping[str, Any]) -> str:
    """One attempt at one event; returns the new delivery status."""
    url, attempts, now = event["webhook_url"], event["delivery_attempts"] + 1, deps.clock.now()
    if not url:
        status, error = "none", None
    else:
        error = await _post(deps, client, event, url, now)
        status = "delivered" if error is None else "pending"
        if error is not None and error.startswith(REFUSED):
            status = "failed"  # retrying cannot help until the URL or the operator changes
    next_at: datetime | None = None
    if status == "pending":
        config = deps.config
        if attempts >= config.webhook_max_attempts:
            status = "failed"
        else:
            next_at = now + retry_delay(
                attempts, config.webhook_backoff_s, config.webhook_backoff_max_s
            )
    if error is not None:
        ids = {key: event[key] for key in ("tenant_id", "rule_id", "action_id", "run_id")}
        log.warning(
            "webhook delivery of event %s failed, now %s: %s",
            event["id"],
            status,
            error,
            extra=ids | {"event_id": event["id"]},
        )
    metrics.WEBHOOKS.labels(result=status).inc()
    async with deps.write() as conn:
        await deliveries.record_attempt(conn, event["id"], status, attempts, next_at, error)
    return status


async def _post(
    deps: Deps, client: httpx.AsyncClient, event: Mapping[str, Any], url: str, now: datetime
) -> str | None:
    """POST the event; None on a 2xx answer, else what went wrong."""
    try:
        await check_url(url, deps.config.allow_private_webhooks)
        body = body_of(event)
        headers = {
            "Content-Type": "application/json",
            SIGNATURE_HEADER: sign(event["webhook_secret"], int(now.timestamp()), body),
            "X-Cadenza-Event-Id": str(event["id"]),
        }
        response = await client.post(
            url, content=body, headers=headers, timeout=deps.config.webhook_timeout_s
        )
    except WebhookRefused as exc:
        return f"{REFUSED}{exc}"
    except httpx.HTTPError as exc:
        return f"{type(exc).__name__}: {exc}"[:500]
    if 200 <= response.status_code < 300:
        return None
    return f"HTTP {response.status_code}: {response.text[:200]}"


async def deliver_due(deps: Deps, client: httpx.AsyncClient) -> int:
    """Deliver every event due now (one batch); returns how many were attempted."""
    now = deps.clock.now()
    hold = now + timedelta(seconds=2 * deps.config.webhook_timeout_s)
    async with deps.write() as conn:
        due = await deliveries.claim_due(conn, now, hold, DELIVERY_BATCH)
    await asyncio.gather(*(deliver(deps, client, event) for event in due))
    return len(due)


async def delivery_loop(deps: Deps) -> None:
    async with httpx.AsyncClient(follow_redirects=False) as client:
        while True:
            try:
                if await deliver_due(deps, client):
                    continue
            except Exception:
                log.exception("webhook delivery pass failed")
            await asyncio.sleep(DELIVERY_POLL_S)
