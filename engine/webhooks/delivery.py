"""Webhook delivery of the events outbox: POST each event to its tenant's URL, signed with
HMAC-SHA256, retried with capped exponential backoff; every attempt is recorded on the event.

Whether an event goes anywhere is decided here, when it comes up for delivery, from the
tenant's webhook as it is then: every event is stored due for delivery (`store.outbox`), and
one whose tenant has no webhook at that moment is settled as `none`. A webhook set one second
before an event is recorded therefore receives it, on every node.

Each delivery is signed with every live signing secret of the tenant
(`engine.webhooks.signing`), and sent through `engine.webhooks.webhook_http` (the host
resolved once, private addresses refused).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Sequence
from datetime import datetime, timedelta

import httpx
from sqlalchemy.engine import RowMapping

from engine.deps import Deps
from engine.domain.policies import retry_delay
from engine.ops import metrics
from engine.ops.metrics import DeliveryOutcome
from engine.store import deliveries
from engine.webhooks.signing import Signing, sign, signing_for
from engine.webhooks.webhook_http import WebhookRefused, new_client, pin, post_pinned

log = logging.getLogger("cadenza.engine")
SIGNATURE_HEADER = "X-Cadenza-Signature"
REFUSED = "refused: "
#: How often a node looks for events to deliver, and how many it takes at once.
DELIVERY_POLL_S = 0.5
DELIVERY_BATCH = 50
#: How often the backlog gauge is measured (a count over the pending events).
BACKLOG_EVERY_S = 5.0
_STATUS = {
    DeliveryOutcome.DELIVERED: "delivered",
    DeliveryOutcome.RETRYING: "pending",
    DeliveryOutcome.FAILED: "failed",
}


def body_of(event: RowMapping) -> bytes:
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


async def deliver(
    deps: Deps, client: httpx.AsyncClient, event: RowMapping, signing: Signing
) -> DeliveryOutcome:
    """One attempt at one event, signed with `signing` (failing if it cannot sign)."""
    attempts, now = event["delivery_attempts"] + 1, deps.clock.now()
    error = signing.problem
    if error is None:
        error = await _post(deps, client, event, event["webhook_url"], signing.secrets, now)
    outcome = _outcome(error, attempts, deps.config.webhook_max_attempts)
    next_at = None
    if outcome is DeliveryOutcome.RETRYING:
        config = deps.config
        next_at = now + retry_delay(
            attempts, config.webhook_backoff_s, config.webhook_backoff_max_s
        )
    if error is not None:
        _log_failure(event, outcome, error)
    metrics.WEBHOOKS.labels(outcome=outcome).inc()
    async with deps.write() as conn:
        status = _STATUS[outcome]
        await deliveries.record_attempt(conn, event["id"], status, attempts, next_at, error)
    return outcome


def _outcome(error: str | None, attempts: int, max_attempts: int) -> DeliveryOutcome:
    if error is None:
        return DeliveryOutcome.DELIVERED
    if error.startswith(REFUSED) or attempts >= max_attempts:
        return DeliveryOutcome.FAILED  # retrying a refused URL cannot help until it changes
    return DeliveryOutcome.RETRYING


def _log_failure(event: RowMapping, outcome: DeliveryOutcome, error: str) -> None:
    ids = {key: event[key] for key in ("tenant_id", "rule_id", "action_id", "run_id")}
    status = _STATUS[outcome]
    log.warning(
        "webhook delivery of event %s failed, now %s: %s",
        event["id"],
        status,
        error,
        extra=ids | {"event_id": event["id"]},
    )


async def _post(
    deps: Deps,
    client: httpx.AsyncClient,
    event: RowMapping,
    url: str,
    signing: Sequence[str],
    now: datetime,
) -> str | None:
    """POST the event; None on a 2xx answer, else what went wrong."""
    try:
        async with asyncio.timeout(deps.config.webhook_timeout_s):
            pinned = await pin(url, deps.config.allow_private_webhooks)
        body = body_of(event)
        headers = {
            "Content-Type": "application/json",
            SIGNATURE_HEADER: sign(signing, int(now.timestamp()), body),
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
        unsent = [e["id"] for e in due if not e["webhook_url"]]
        await deliveries.settle_without_webhook(conn, unsent)
        sending = [e for e in due if e["webhook_url"]]
        signing = await signing_for(conn, deps.secrets, {e["tenant_id"] for e in sending}, now)
    metrics.WEBHOOKS.labels(outcome=DeliveryOutcome.NO_WEBHOOK).inc(len(unsent))
    await asyncio.gather(*(deliver(deps, client, e, signing[e["tenant_id"]]) for e in sending))
    return len(due)


async def delivery_loop(deps: Deps) -> None:
    measured_at = 0.0
    async with new_client() as client:
        while True:
            try:
                if time.monotonic() - measured_at >= BACKLOG_EVERY_S:
                    measured_at = time.monotonic()
                    async with deps.db.connect() as conn:
                        metrics.WEBHOOK_BACKLOG.set(await deliveries.backlog(conn))
                if await deliver_due(deps, client):
                    continue
            except Exception:
                log.exception("webhook delivery pass failed")
            await asyncio.sleep(DELIVERY_POLL_S)
