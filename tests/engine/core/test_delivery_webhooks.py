"""Webhook delivery against a real local HTTP server: signed, retried with backoff, every
attempt recorded; a loopback URL is refused unless the operator allows private webhooks."""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Iterator
from dataclasses import replace
from datetime import timedelta

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncEngine
from support.receivers import Receiver
from support.threaded_server import serving
from support.waiting import eventually
from support.webhooks import point_webhook

from engine.clock import ManualClock
from engine.config import EngineConfig
from engine.service import EngineService
from engine.store.tables import events
from sandbox import Sandbox
from tenants.secret_box import SecretBox

EMITTER = "def main(ctx):\n    ctx.emit('invoice.due', {'amount': 42})\n"


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    r = Receiver(failures=1)
    with serving(r.server):
        yield r


async def _event(db: AsyncEngine) -> object:
    async with db.connect() as conn:
        return (
            (await conn.execute(select(events).where(events.c.type == "invoice.due")))
            .mappings()
            .first()
        )


async def test_event_is_signed_retried_and_delivered(
    db: AsyncEngine,
    sandbox: Sandbox,
    tenant_id: str,
    clock: ManualClock,
    engine_config: EngineConfig,
    receiver: Receiver,
    secret_box: SecretBox,
) -> None:
    secret = await point_webhook(db, secret_box, tenant_id, receiver.url)
    config = replace(engine_config, allow_private_webhooks=True, webhook_backoff_s=10)
    service = EngineService(db, sandbox, config, clock, secret_box)
    try:
        await service.submit_action(tenant_id, run_at=clock.now(), code=EMITTER)
        await service.start()
        first = await eventually(lambda: _attempts(db, 1))
        assert first["delivery_status"] == "pending" and "HTTP 500" in first["last_error"]
        clock.advance(timedelta(seconds=11))  # past the backoff
        done = await eventually(lambda: _attempts(db, 2))
    finally:
        await service.stop()
    assert done["delivery_status"] == "delivered"
    headers, body, _ = receiver.received[-1]
    timestamp, signature = (
        part.split("=", 1)[1] for part in headers["X-Cadenza-Signature"].split(",")
    )
    expected = hmac.new(
        secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256
    ).hexdigest()
    assert hmac.compare_digest(signature, expected)
    assert json.loads(body)["payload"] == {"amount": 42}


async def _attempts(db: AsyncEngine, n: int) -> object:
    event = await _event(db)
    return event if event is not None and event["delivery_attempts"] >= n else None  # type: ignore[index]


async def test_loopback_is_refused_unless_allowed(
    db: AsyncEngine,
    service: EngineService,
    tenant_id: str,
    clock: ManualClock,
    receiver: Receiver,
    secret_box: SecretBox,
) -> None:
    await point_webhook(db, secret_box, tenant_id, receiver.url)
    await service.submit_action(tenant_id, run_at=clock.now(), code=EMITTER)
    await service.start()
    event = await eventually(lambda: _attempts(db, 1))
    assert event["delivery_status"] == "failed"  # type: ignore[index]
    assert "private or local address" in event["last_error"]  # type: ignore[index]
    assert receiver.received == []
