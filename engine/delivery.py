"""Webhook delivery of the events outbox: POST each event to its tenant's URL, signed with
HMAC-SHA256, retried with capped exponential backoff; every attempt is recorded on the event.

Signature: header `X-Cadenza-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret,
"<t>.<body>")>`; the receiver recomputes it with the tenant's webhook secret and rejects old
timestamps. URLs resolving to loopback, private, link-local or reserved addresses are refused
unless the operator allows them (`allow_private_webhooks`).

The host is resolved once per attempt and the request is sent to the address that was
checked, with the URL's Host header and, over TLS, its name for SNI and certificate
verification: a DNS answer that changes between the check and the connection (DNS rebinding)
cannot redirect the request. So connections are not kept alive (one could otherwise serve a
later request to another host name on the same address) and proxy variables are ignored.
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
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

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


@dataclass(frozen=True)
class Pinned:
    """A webhook request bound to the address that was checked."""

    url: httpx.URL
    """The URL with its host replaced by the address."""
    host: str
    """The original URL's host (IDNA), for SNI and the certificate check."""
    host_header: str
    """The original URL's host and port, as the Host header."""


async def pin(url: str, allow_private: bool) -> Pinned:
    """Resolve the URL's host once; refuse non-HTTP URLs and, unless allowed, a host with any
    non-public address. Raises OSError when the host does not resolve (worth retrying)."""
    try:
        parsed = httpx.URL(url)
    except httpx.InvalidURL as exc:
        raise WebhookRefused(f"webhook URL {url!r} is not valid: {exc}") from exc
    if parsed.scheme not in {"http", "https"} or not parsed.raw_host:
        raise WebhookRefused(f"webhook URL {url!r} is not an http(s) URL")
    host = parsed.raw_host.decode("ascii")
    infos = await asyncio.get_running_loop().getaddrinfo(
        host, parsed.port or (443 if parsed.scheme == "https" else 80), type=socket.SOCK_STREAM
    )
    addresses = [ipaddress.ip_address(info[4][0]) for info in infos]
    private = next((a for a in addresses if not a.is_global), None)
    if private is not None and not allow_private:
        raise WebhookRefused(
            f"{host} resolves to {private}, a private or local address; "
            "the operator must allow private webhooks to use it"
        )
    return Pinned(parsed.copy_with(host=str(addresses[0])), host, parsed.netloc.decode("ascii"))


async def post_pinned(
    client: httpx.AsyncClient,
    pinned: Pinned,
    body: bytes,
    headers: Mapping[str, str],
    timeout_s: float,
) -> httpx.Response:
    """POST to the pinned address as if to the original URL's host."""
    return await client.post(
        pinned.url,
        content=body,
        headers={"Host": pinned.host_header, **headers},
        timeout=timeout_s,
        extensions={"sni_hostname": pinned.host},
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
        async with asyncio.timeout(deps.config.webhook_timeout_s):
            pinned = await pin(url, deps.config.allow_private_webhooks)
        body = body_of(event)
        headers = {
            "Content-Type": "application/json",
            SIGNATURE_HEADER: sign(event["webhook_secret"], int(now.timestamp()), body),
            "X-Cadenza-Event-Id": str(event["id"]),
        }
        response = await post_pinned(client, pinned, body, headers, deps.config.webhook_timeout_s)
    except WebhookRefused as exc:
        return f"{REFUSED}{exc}"
    except OSError as exc:  # includes the resolver's timeout
        return f"cannot resolve the webhook host: {type(exc).__name__}: {exc}"[:500]
    except httpx.HTTPError as exc:
        return f"{type(exc).__name__}: {exc}"[:500]
    if 200 <= response.status_code < 300:
        return None
    return f"HTTP {response.status_code}: {response.text[:200]}"


async def deliver_due(deps: Deps, client: httpx.AsyncClient) -> int:
    """Deliver every event due now (one batch); returns how many were attempted."""
    now = deps.clock.now()
    hold = now + timedelta(seconds=2 * deps.config.webhook_timeout_s)
    async with deps.db.connect() as conn:
        ids = await deliveries.due_ids(conn, now, DELIVERY_BATCH)
    if not ids:
        return 0
    async with deps.write() as conn:
        due = await deliveries.claim(conn, ids, now, hold)
    await asyncio.gather(*(deliver(deps, client, event) for event in due))
    return len(due)


def new_client() -> httpx.AsyncClient:
    """A client for pinned requests: no redirects, no proxies, no connection kept alive."""
    return httpx.AsyncClient(
        follow_redirects=False,
        trust_env=False,
        limits=httpx.Limits(max_keepalive_connections=0),
    )


async def delivery_loop(deps: Deps) -> None:
    async with new_client() as client:
        while True:
            try:
                if await deliver_due(deps, client):
                    continue
            except Exception:
                log.exception("webhook delivery pass failed")
            await asyncio.sleep(DELIVERY_POLL_S)
