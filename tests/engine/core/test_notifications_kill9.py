"""Notices are written with the outcomes they tell of: `kill -9` a real `cadenza worker` while
rules fail and recover, restart it, and each rule's notifications are exactly those its final
outcomes call for (one `failed` per failing streak, one `recovered` per ended streak), none
twice and none lost, and every one reaches the Slack stand-in."""

from __future__ import annotations

import json
import os
import random
import signal
from collections import defaultdict
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import ColumnElement, func, select
from sqlalchemy.ext.asyncio import AsyncEngine
from support.receivers import Receiver
from support.threaded_server import serving
from support.waiting import eventually
from test_notification_streaks import expected
from workers import start_worker, stop

from engine.domain.notifications import NotificationChannel, NotificationEvent, RouteSpec
from engine.domain.records import OverlapPolicy, RuleSpec
from engine.service import EngineService
from engine.store.tables import actions, notifications

RULES, ACTIONS_PER_RULE = 5, 6
#: Fails when its params say so; spins a little so that runs are in flight when the kill lands.
CODE = """
def main(ctx):
    total = 0
    for i in range(60000):
        total += i
    if ctx.params.get("fail"):
        raise ValueError("boom")
    return total
"""
EVENTS = (NotificationEvent.FAILED, NotificationEvent.RECOVERED)
_UNFINISHED = ("pending", "running")


@pytest.fixture
def slack() -> Iterator[Receiver]:
    receiver = Receiver()
    with serving(receiver.server):
        yield receiver


async def _submit(service: EngineService, tenant_id: str) -> list[str]:
    """Rules each with a queue of one-off actions that fail or succeed at random, spaced so
    that a rule's runs follow one another."""
    rng, now, rule_ids = random.Random(22), datetime.now(UTC), []
    for r in range(RULES):
        spec = RuleSpec(
            name=f"r{r}",
            schedule="0 0 1 1 *",
            code=CODE,
            max_attempts=1,
            overlap_policy=OverlapPolicy.ALLOW,
        )
        rule = await service.create_rule(tenant_id, spec)
        rule_ids.append(rule.id)
        for n in range(ACTIONS_PER_RULE):
            await service.submit_action(
                tenant_id,
                rule_id=rule.id,
                run_at=now + timedelta(seconds=1 + 0.3 * n),
                key=f"{r}-{n}",
                params={"fail": rng.random() < 0.5},
            )
    return rule_ids


async def _count(db: AsyncEngine, *where: ColumnElement[bool]) -> int:
    """How many of the submitted actions (not the rules' own yearly occurrences) match."""
    async with db.connect() as conn:
        submitted = actions.c.key.is_not(None)
        query = select(func.count()).select_from(actions).where(submitted, *where)
        return int((await conn.execute(query)).scalar_one())


async def _mid_stream(db: AsyncEngine) -> bool:
    finished = await _count(db, actions.c.status.not_in(_UNFINISHED))
    return (
        finished >= RULES * ACTIONS_PER_RULE // 4
        and await _count(db, actions.c.status == "running") > 0
    )


async def _all_sent(db: AsyncEngine) -> bool:
    if await _count(db, actions.c.status.in_(_UNFINISHED)):
        return False
    async with db.connect() as conn:
        pending = select(func.count()).where(notifications.c.delivery_status == "pending")
        return int((await conn.execute(pending)).scalar_one()) == 0


async def test_kill_9_neither_repeats_nor_loses_a_streak_notice(
    service: EngineService,
    tenant_id: str,
    db: AsyncEngine,
    database_url: str,
    tmp_path: Path,
    slack: Receiver,
) -> None:
    spec = RouteSpec(EVENTS, NotificationChannel.SLACK, slack.url, None, None)
    await service.create_notification_route(tenant_id, spec)
    rule_ids = await _submit(service, tenant_id)
    env = {"CADENZA_ALLOW_PRIVATE_WEBHOOKS": "true"}
    first = start_worker(database_url, "notifier", tmp_path, **env)
    try:
        await eventually(lambda: _mid_stream(db), timeout_s=60)
        os.kill(first.pid, signal.SIGKILL)
        first.wait()
    finally:
        stop(first)
    assert await _count(db, actions.c.status == "running") > 0, "nothing was in flight"
    second = start_worker(database_url, "notifier", tmp_path, **env)  # same name: takes back
    try:
        await eventually(lambda: _all_sent(db), timeout_s=60)
    finally:
        stop(second)
    async with db.connect() as conn:
        ends = (
            await conn.execute(
                select(actions.c.rule_id, actions.c.status)
                .where(actions.c.rule_id.in_(rule_ids), actions.c.key.is_not(None))
                .order_by(actions.c.finished_at, actions.c.id)
            )
        ).all()
        told = (
            await conn.execute(
                select(
                    notifications.c.rule_id, notifications.c.event, notifications.c.delivery_status
                ).order_by(notifications.c.id)
            )
        ).all()
    outcomes: dict[str, list[bool]] = defaultdict(list)
    for rule_id, status in ends:
        outcomes[rule_id].append(status == "succeeded")
    assert {s for _, _, s in told} == {"delivered"}
    for rule_id in rule_ids:
        assert [e for r, e, _ in told if r == rule_id] == expected(outcomes[rule_id]), rule_id
    texts = {json.loads(body)["text"] for _, body, _ in slack.received}
    assert sum(1 for t in texts if "failed" in t) == sum(1 for _, e, _ in told if e == "failed")
    assert len(texts) == len(told), "every notice reached Slack (a resend would repeat a text)"
