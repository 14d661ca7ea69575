"""One delivery attempt, whatever it delivers (an event, a notification): POST a body to a
pinned URL, then settle the attempt as delivered, retrying after a capped exponential
backoff, or failed for good."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from datetime import datetime, timedelta

import httpx
from sqlalchemy import Table

from engine.config import EngineConfig
from engine.deps import Deps
from engine.domain.policies import retry_delay
from engine.ops.metrics import DeliveryOutcome
from engine.store import deliveries
from engine.webhooks.webhook_http import WebhookRefused, pin, post_pinned

#: An error that starts with this is not retried: retrying cannot help until the URL changes.
REFUSED = "refused: "
#: The delivery status an attempt leaves its row in.
STATUS = {
    DeliveryOutcome.DELIVERED: "delivered",
    DeliveryOutcome.RETRYING: "pending",
    DeliveryOutcome.FAILED: "failed",
}


async def due_now(deps: Deps, outbox: Table, batch: int) -> tuple[datetime, list[int]]:
    """Now, and up to `batch` rows of `outbox` due for an attempt at it, read outside the
    write lock (most polls find none)."""
    now = deps.clock.now()
    async with deps.db.connect() as conn:
        return now, await deliveries.due_ids(conn, outbox, now, batch)


def hold_until(config: EngineConfig, now: datetime) -> datetime:
    """Until when a node holds the rows it sends, so no other node sends them too: past its
    attempts' timeouts."""
    return now + timedelta(seconds=2 * config.webhook_timeout_s)


def settle(
    config: EngineConfig, error: str | None, attempts: int, now: datetime
) -> tuple[DeliveryOutcome, datetime | None]:
    """How an attempt ended, and when the next one is due (None: no next one)."""
    if error is None:
        return DeliveryOutcome.DELIVERED, None
    if error.startswith(REFUSED) or attempts >= config.webhook_max_attempts:
        return DeliveryOutcome.FAILED, None
    delay = retry_delay(attempts, config.webhook_backoff_s, config.webhook_backoff_max_s)
    return DeliveryOutcome.RETRYING, now + delay


async def post(
    config: EngineConfig,
    client: httpx.AsyncClient,
    url: str,
    body: bytes,
    headers: Mapping[str, str],
) -> str | None:
    """POST `body` to `url` (pinned, private addresses refused unless allowed); None on a 2xx
    answer, else what went wrong."""
    try:
        async with asyncio.timeout(config.webhook_timeout_s):
            pinned = await pin(url, config.allow_private_webhooks)
        response = await post_pinned(client, pinned, body, headers, config.webhook_timeout_s)
    except WebhookRefused as exc:
        return f"{REFUSED}{exc}"
    except OSError as exc:  # includes the resolver's timeout
        return f"cannot resolve the webhook host: {type(exc).__name__}: {exc}"[:500]
    except httpx.HTTPError as exc:
        return f"{type(exc).__name__}: {exc}"[:500]
    if 200 <= response.status_code < 300:
        return None
    return f"HTTP {response.status_code}: {response.text[:200]}"
