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

import httpx
from sqlalchemy.engine import RowMapping

from engine.deps import Deps
from engine.ops import metrics
from engine.ops.metrics import DeliveryOutcome
from engine.store import deliveries
from engine.store.tables import events, notifications
from engine.webhooks.attempts import STATUS, due_now, hold_until, post, settle
from engine.webhooks.notices import deliver_notices_due
from engine.webhooks.signing import Signing, signed_headers, signing_for
from engine.webhooks.webhook_http import new_client

log = logging.getLogger("cadenza.engine")
#: How often a node looks for events to deliver, and how many it takes at once.
DELIVERY_POLL_S = 0.5
DELIVERY_BATCH = 50
#: How often the backlog gauge is measured (a count over the pending events).
BACKLOG_EVERY_S = 5.0


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
        headers = signed_headers(signing.secrets, now, body_of(event))
        headers["X-Cadenza-Event-Id"] = str(event["id"])
        error = await post(deps.config, client, event["webhook_url"], body_of(event), headers)
    outcome, next_at = settle(deps.config, error, attempts, now)
    if error is not None:
        _log_failure(event, outcome, error)
    metrics.WEBHOOKS.labels(outcome=outcome).inc()
    async with deps.write() as conn:
        await deliveries.record_attempt(
            conn, events, [event["id"]], STATUS[outcome], attempts, next_at, error, now
        )
    return outcome


def _log_failure(event: RowMapping, outcome: DeliveryOutcome, error: str) -> None:
    ids = {key: event[key] for key in ("tenant_id", "rule_id", "action_id", "run_id")}
    log.warning(
        "webhook delivery of event %s failed, now %s: %s",
        event["id"],
        STATUS[outcome],
        error,
        extra=ids | {"event_id": event["id"]},
    )


async def deliver_due(deps: Deps, client: httpx.AsyncClient) -> int:
    """Deliver every event due now (one batch); returns how many were attempted."""
    now, ids = await due_now(deps, events, DELIVERY_BATCH)
    if not ids:
        return 0
    async with deps.write() as conn:
        due = await deliveries.claim(conn, ids, now, hold_until(deps.config, now))
        unsent = [e["id"] for e in due if not e["webhook_url"]]
        await deliveries.settle_without_webhook(conn, unsent)
        sending = [e for e in due if e["webhook_url"]]
        signing = await signing_for(conn, deps.secrets, {e["tenant_id"] for e in sending}, now)
    metrics.WEBHOOKS.labels(outcome=DeliveryOutcome.NO_WEBHOOK).inc(len(unsent))
    await asyncio.gather(*(deliver(deps, client, e, signing[e["tenant_id"]]) for e in sending))
    return len(due)


async def delivery_loop(deps: Deps) -> None:
    """Deliver the events and the notifications as they come due, on this node."""
    measured_at = 0.0
    async with new_client() as client:
        while True:
            try:
                if time.monotonic() - measured_at >= BACKLOG_EVERY_S:
                    measured_at = time.monotonic()
                    await _measure_backlogs(deps)
                sent = await deliver_due(deps, client)
                if sent + await deliver_notices_due(deps, client):
                    continue
            except Exception:
                log.exception("webhook delivery pass failed")
            await asyncio.sleep(DELIVERY_POLL_S)


async def _measure_backlogs(deps: Deps) -> None:
    async with deps.db.connect() as conn:
        metrics.WEBHOOK_BACKLOG.set(await deliveries.backlog(conn, events))
        metrics.NOTIFICATION_BACKLOG.set(await deliveries.backlog(conn, notifications))
