"""Notifications sent by the engine in-process to real stand-ins: the tenant webhook and a
Slack-compatible URL (local HTTP receivers), email (a local SMTP server). A failing streak is
told once and its end once, retries are not told; skips and expiries reach the routes that ask
for them; a digest route gets one message per window; an email route without an SMTP server
and a webhook route without a webhook fail, saying why."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from datetime import timedelta
from typing import Any, cast

import pytest
from failing_rule import start_failing_rule
from sqlalchemy import select
from sqlalchemy.engine import RowMapping
from sqlalchemy.ext.asyncio import AsyncEngine
from support.mail_stand_in import LOGIN, MailBox, smtp_stand_in
from support.moments import START
from support.receivers import Receiver
from support.threaded_server import serving
from support.waiting import eventually
from support.webhooks import point_webhook

from engine.clock import ManualClock
from engine.config import EngineConfig, SmtpSettings
from engine.domain.notifications import NotificationChannel, NotificationEvent, RouteSpec
from engine.domain.records import MisfirePolicy, RuleSpec
from engine.service import EngineService
from engine.store.tables import notifications
from engine.webhooks.notice_messages import messages_of, slack_body
from engine.webhooks.notices import NO_WEBHOOK
from engine.webhooks.smtp import NO_SMTP
from sandbox import Sandbox
from tenants.secret_box import SecretBox

FAILED, RECOVERED = NotificationEvent.FAILED, NotificationEvent.RECOVERED
SKIPPED, EXPIRED = NotificationEvent.SKIPPED, NotificationEvent.EXPIRED
WEBHOOK, SLACK, EMAIL = (NotificationChannel(c) for c in ("webhook", "slack", "email"))
OK = "def main(ctx):\n    return 1\n"


def _served_receiver() -> Iterator[Receiver]:
    receiver = Receiver()
    with serving(receiver.server):
        yield receiver


slack = pytest.fixture(_served_receiver, name="slack")
hook = pytest.fixture(_served_receiver, name="hook")


@pytest.fixture
def mail() -> Iterator[tuple[MailBox, int]]:
    with smtp_stand_in() as box_and_port:
        yield box_and_port


@pytest.fixture
def engine_config(engine_config: EngineConfig) -> EngineConfig:
    """The engine may send to the local stand-ins, and retries after a second; no SMTP."""
    return replace(engine_config, allow_private_webhooks=True, webhook_backoff_s=1)


async def _route(
    service: EngineService,
    tenant_id: str,
    events: tuple[NotificationEvent, ...],
    channel: NotificationChannel,
    target: str = "",
    rule_id: str | None = None,
    digest_minutes: int | None = None,
) -> int:
    spec = RouteSpec(events, channel, target, rule_id, digest_minutes)
    return (await service.create_notification_route(tenant_id, spec)).id


async def _rows(db: AsyncEngine) -> list[Any]:
    async with db.connect() as conn:
        query = select(notifications).order_by(notifications.c.id)
        return list((await conn.execute(query)).mappings())


async def _settled(db: AsyncEngine, n: int) -> list[Any] | None:
    """The notification rows once there are `n` and none is waiting to be sent."""
    rows = await _rows(db)
    done = len(rows) == n and all(r["delivery_status"] != "pending" for r in rows)
    return rows if done else None


def _posted(receiver: Receiver) -> list[Any]:
    return [json.loads(body) for _, body, _ in receiver.received]


async def test_a_failing_streak_is_told_once_and_its_recovery_once(
    db: AsyncEngine,
    sandbox: Sandbox,
    tenant_id: str,
    clock: ManualClock,
    engine_config: EngineConfig,
    secret_box: SecretBox,
    slack: Receiver,
    hook: Receiver,
    mail: tuple[MailBox, int],
) -> None:
    box, port = mail
    await point_webhook(db, secret_box, tenant_id, hook.url)
    smtp = SmtpSettings("127.0.0.1", port, "cadenza@example.com", *LOGIN, starttls=False)
    service = EngineService(db, sandbox, replace(engine_config, smtp=smtp), clock, secret_box)
    try:
        rule, runs = await start_failing_rule(service, tenant_id, clock, max_attempts=2)
        await _route(service, tenant_id, (FAILED, RECOVERED), WEBHOOK)
        await _route(service, tenant_id, (FAILED, RECOVERED), SLACK, slack.url, rule.id)
        await _route(service, tenant_id, (FAILED,), EMAIL, "oncall@example.com")
        for occurrence in range(2):  # two occurrences, each failing twice: one streak
            await eventually(lambda n=occurrence: runs(2 * n + 1))
            clock.advance(timedelta(seconds=2))  # past the retry's backoff
            await eventually(lambda n=occurrence: runs(2 * n + 2))
            clock.advance(timedelta(minutes=1))
        await service.update_rule(tenant_id, rule.id, {"code": OK})
        clock.advance(timedelta(minutes=1))

        async def settled() -> list[Any] | None:
            # Time passes as it would: an attempt that failed on a loaded machine is retried.
            clock.advance(timedelta(seconds=0.2))
            return await _settled(db, 5)

        rows = await eventually(settled)
        routes = (await service.list_notification_routes(tenant_id, None, None, 50)).items
    finally:
        await service.stop()
    assert {r["delivery_status"] for r in rows} == {"delivered"}
    assert [r.last_delivery.status for r in routes if r.last_delivery] == ["delivered"] * 3
    assert sorted(r["event"] for r in rows) == ["failed"] * 3 + ["recovered"] * 2
    texts = [p["text"] for p in _posted(slack)]
    assert len(texts) == 2 and "failed" in texts[0] and "recovered" in texts[1]
    assert "ValueError: boom" in texts[0] and rule.id in texts[0]
    documents = [d for d in _posted(hook) if d["type"] == "notifications"]  # not run.failed
    assert [d["notifications"][0]["event"] for d in documents] == ["failed", "recovered"]
    assert all("X-Cadenza-Signature" in headers for headers, _, _ in hook.received)
    assert documents[0]["notifications"][0]["payload"]["attempt"] == 2  # the final attempt
    [(recipients, message)] = box.messages
    assert recipients == ["oncall@example.com"] and "failed" in message["Subject"]
    assert message["From"] == "cadenza@example.com" and box.logged_in == [True]
    assert "ValueError: boom" in message.get_content()


async def test_skips_reach_a_digest_route_as_one_message(
    db: AsyncEngine, service: EngineService, tenant_id: str, clock: ManualClock, slack: Receiver
) -> None:
    spec = RuleSpec(name="m", schedule="* * * * *", code=OK, misfire_policy=MisfirePolicy.SKIP)
    rule = await service.create_rule(tenant_id, spec)
    await _route(service, tenant_id, (SKIPPED,), SLACK, slack.url, digest_minutes=1)
    await _route(service, tenant_id, (FAILED, EXPIRED), SLACK, slack.url)  # not skips
    clock.set(START + timedelta(minutes=5, seconds=30))  # 09:01-09:05 missed
    await service.start()
    waiting = await eventually(lambda: _at_least(db, 5))
    assert slack.received == [], "a digest waits for the end of its window"
    clock.set(START + timedelta(minutes=6, seconds=1))
    rows = await eventually(lambda: _settled(db, len(waiting)))
    assert {(r["event"], r["delivery_status"], r["rule_id"]) for r in rows} == {
        ("skipped", "delivered", rule.id)
    }
    [text] = [p["text"] for p in _posted(slack)]
    assert text.startswith(f"{len(rows)} notifications") and text.count("skipped") == len(rows)


async def _at_least(db: AsyncEngine, n: int) -> list[Any] | None:
    rows = await _rows(db)
    return rows if len(rows) >= n else None


async def test_email_without_smtp_and_webhook_without_url_fail_saying_why(
    db: AsyncEngine, service: EngineService, tenant_id: str, clock: ManualClock
) -> None:
    await _route(service, tenant_id, (EXPIRED,), EMAIL, "oncall@example.com")
    await _route(service, tenant_id, (EXPIRED,), WEBHOOK)
    run_at = clock.now()
    await service.submit_action(
        tenant_id, run_at=run_at, code=OK, expires_at=run_at + timedelta(minutes=1)
    )
    clock.advance(timedelta(minutes=2))  # it expires before the engine is there
    await service.start()
    rows = await eventually(lambda: _settled(db, 2))
    routes = (await service.list_notification_routes(tenant_id, None, None, 50)).items
    assert [(r["event"], r["delivery_status"]) for r in rows] == [("expired", "failed")] * 2
    assert {r["last_error"] for r in rows} == {NO_SMTP, NO_WEBHOOK}
    assert all(r["delivery_attempts"] == 1 for r in rows), "a refusal is not retried"
    lasts = [r.last_delivery for r in routes]
    assert [(d.status, d.error) for d in lasts if d] == [
        ("failed", NO_SMTP),
        ("failed", NO_WEBHOOK),
    ]


def test_a_slack_text_cannot_mention_the_channel_or_link() -> None:
    row = {
        "id": 1, "route_id": 2, "tenant_id": "t", "channel": "slack", "target": "https://x",
        "digest_minutes": None, "event": "failed", "rule_id": "r_1", "action_id": 3,
        "payload": {"rule_name": "n", "scheduled_at": "2030-01-07T09:00:00+00:00",
                    "error": "ValueError: <!channel> <https://evil.example|click> & co"},
    }  # fmt: skip
    [message] = messages_of([cast(RowMapping, row)])
    text = json.loads(slack_body(message))["text"]
    assert "<" not in text and ">" not in text
    assert "&lt;!channel&gt; &lt;https://evil.example|click&gt; &amp; co" in text
