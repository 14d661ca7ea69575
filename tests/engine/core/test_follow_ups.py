"""`ctx.schedule`: a run plans a one-off of its rule, committed with its effects: a failed
attempt plans nothing, a retried occurrence plans once, a key already used keeps its action,
and the follow-up runs with its params when due. Bad requests are the script's HostError."""

from __future__ import annotations

from datetime import timedelta

import pytest
from http_trials import trial
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncEngine
from stored import kv_value
from support.waiting import eventually

from engine.clock import ManualClock
from engine.domain.records import RuleSpec
from engine.service import EngineService
from engine.store.tables import actions

PLANNER = """
import datetime

def main(ctx):
    if ctx.params.get("reminder"):
        ctx.kv.incr("reminders", 1)
        return "reminded"
    at = datetime.datetime.fromisoformat(ctx.scheduled_at) + datetime.timedelta(hours=1)
    ctx.schedule(at, {"reminder": True}, "remind/cart-1")
    ctx.schedule(at.isoformat(), {"reminder": True})
    if ctx.attempt == 1:
        raise ValueError("the first attempt fails after planning")
    return "planned"
"""


async def _keyed(db: AsyncEngine, tenant_id: str) -> list[tuple[str, str, object]]:
    async with db.connect() as conn:
        query = select(actions.c.key, actions.c.status, actions.c.params).where(
            actions.c.tenant_id == tenant_id, actions.c.key.is_not(None)
        )
        return sorted((k, s, p) for k, s, p in await conn.execute(query))


async def test_a_follow_up_is_planned_once_with_the_committed_run_and_runs_when_due(
    service: EngineService, db: AsyncEngine, tenant_id: str, clock: ManualClock
) -> None:
    spec = RuleSpec(name="p", schedule="0 9 * * *", code=PLANNER, max_attempts=2, backoff_s=1)
    rule = await service.create_rule(tenant_id, spec)
    await service.start()
    assert rule.next_run_at is not None
    clock.set(rule.next_run_at)

    async def planned() -> object:
        found = await _keyed(db, tenant_id)
        return found if len(found) == 2 else None

    async def failed_once() -> object:
        runs = (await service.list_runs(tenant_id, rule_id=rule.id)).items
        return runs and runs[0].outcome == "error"

    await eventually(failed_once)
    assert await _keyed(db, tenant_id) == []  # the failed attempt planned nothing
    clock.advance(timedelta(seconds=30))  # past the first attempt's backoff
    found = await eventually(planned)
    keys = [k for k, _, _ in found]
    assert "remind/cart-1" in keys and any(k.startswith("followup:") for k in keys)
    assert all(s == "pending" and p == {"reminder": True} for _, s, p in found)
    clock.set(rule.next_run_at + timedelta(hours=1, seconds=1))

    async def reminded() -> object:
        return await kv_value(db, tenant_id, "reminders") == 2

    await eventually(reminded)
    assert [s for _, s, _ in await _keyed(db, tenant_id)] == ["succeeded", "succeeded"]


@pytest.mark.parametrize(
    ("call", "refusal"),
    [
        ("ctx.schedule('2026-11-27T09:00:00', {})", "with an offset"),
        ("ctx.schedule('tomorrow', {})", "with an offset"),
        ("ctx.schedule('2099-01-01T00:00:00+00:00', {})", "days ahead"),
        ("ctx.schedule('2026-11-27T09:00:00+00:00', [1])", "params must be a dict"),
        ("ctx.schedule('2026-11-27T09:00:00+00:00', {}, '')", "key must be"),
        ("[ctx.schedule('2026-11-27T09:00:00+00:00', {}) for i in range(11)]", "at most 10"),
    ],
)
async def test_bad_follow_ups_are_the_scripts_host_error(
    db, both_pythons, secret_box, clock, tenant_id, call: str, refusal: str
) -> None:
    code = (
        "def main(ctx):\n    try:\n"
        f"        {call}\n"
        "    except HostError as exc:\n        return str(exc)\n"
    )
    found = await trial(db, both_pythons, secret_box, clock, tenant_id, code)
    assert refusal in str(found.outcome.result)
