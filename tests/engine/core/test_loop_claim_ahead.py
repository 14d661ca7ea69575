"""An action may be claimed a few milliseconds before it is due (so the claim's transaction
is out of the way at the due time), but its run never starts before the due time, and an
edit or pause committed in between still reaches it."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine
from stored import kv_value
from support.waiting import eventually

from engine.clock import ManualClock
from engine.domain.records import Action, ActionStatus, RuleSpec
from engine.loop.claim_lead import CLAIM_AHEAD
from engine.loop.tenant_loop import BATCH_AHEAD
from engine.service import EngineService
from engine.store.actions import finish_pending_of_rule


@pytest.mark.parametrize(
    ("slow_claims_ms", "ahead"),
    [
        (None, CLAIM_AHEAD / 2),
        # After claims took 100 ms, the lead is 200 ms: claimed well before CLAIM_AHEAD.
        (100, timedelta(milliseconds=80)),
    ],
    ids=["least-lead", "after-slow-claims"],
)
async def test_claimed_ahead_but_started_at_the_due_time(
    service: EngineService,
    tenant_id: str,
    clock: ManualClock,
    slow_claims_ms: int | None,
    ahead: timedelta,
) -> None:
    rule = await service.create_rule(
        tenant_id, RuleSpec(name="r", schedule="* * * * *", code="def main(ctx):\n    return 1\n")
    )
    due = rule.next_run_at
    assert due is not None
    await service.start()
    assert service.node is not None
    if slow_claims_ms is not None:
        service.node.claim_lead.note(timedelta(milliseconds=slow_claims_ms))
    clock.set(due - ahead)

    async def claimed() -> bool:
        actions = (await service.list_actions(tenant_id, rule_id=rule.id)).items
        return any(a.scheduled_at == due and a.status is ActionStatus.RUNNING for a in actions)

    await eventually(claimed)
    assert (await service.list_runs(tenant_id, rule_id=rule.id)).items == [], "not started early"
    clock.set(due + timedelta(milliseconds=1))

    async def runs() -> object:
        return (await service.list_runs(tenant_id, rule_id=rule.id)).items

    (run,) = await eventually(runs)
    assert run.outcome == "ok" and run.started_at >= due


COUNTING = """
def main(ctx):
    ctx.kv.set("old", ctx.kv.get("old", 0) + 1)
    return "old"
"""


async def _claimed_ahead(service: EngineService, tenant_id: str, clock: ManualClock) -> Action:
    """A counting rule whose first occurrence this node has claimed, before its due time."""
    rule = await service.create_rule(
        tenant_id, RuleSpec(name="r", schedule="* * * * *", code=COUNTING)
    )
    assert rule.next_run_at is not None
    await service.start()
    clock.set(rule.next_run_at - CLAIM_AHEAD / 2)

    async def claimed() -> Action | None:
        actions = (await service.list_actions(tenant_id, rule_id=rule.id)).items
        return next((a for a in actions if a.status is ActionStatus.RUNNING), None)

    return await eventually(claimed)


async def _settled(service: EngineService, action: Action, clock: ManualClock) -> None:
    """Past the action's due time, until this node no longer holds it in flight."""
    clock.set(action.scheduled_at + timedelta(milliseconds=1))
    node = service.node
    assert node is not None

    async def released() -> bool:
        return action.id not in node.in_flight_ids()

    await eventually(released)


@pytest.mark.parametrize("added_after", [0, 3], ids=["alone", "then-one-offs-added"])
async def test_an_edit_inside_the_claim_window_reaches_the_claimed_occurrence(
    service: EngineService, tenant_id: str, clock: ManualClock, db: AsyncEngine, added_after: int
) -> None:
    """One-offs submitted after the edit (work only added) do not hide it from the run."""
    action = await _claimed_ahead(service, tenant_id, clock)
    assert action.rule_id is not None
    new_code = "def main(ctx):\n    return 'new'\n"
    await service.update_rule(tenant_id, action.rule_id, {"code": new_code})
    for _ in range(added_after):
        later = action.scheduled_at + timedelta(hours=1)
        await service.submit_action(tenant_id, run_at=later, key=None, code=new_code)
    revoked = await service.get_action(tenant_id, action.id)
    assert (revoked.status, revoked.reason) == (ActionStatus.CANCELLED, "rule_changed")
    await _settled(service, action, clock)
    assert (await service.list_runs(tenant_id, rule_id=action.rule_id)).items == []
    assert await kv_value(db, tenant_id, "old") is None, "the old code never ran"


async def test_a_pause_inside_the_claim_window_skips_the_claimed_occurrence(
    service: EngineService, tenant_id: str, clock: ManualClock, db: AsyncEngine
) -> None:
    action = await _claimed_ahead(service, tenant_id, clock)
    assert action.rule_id is not None
    await service.pause_rule(tenant_id, action.rule_id)
    paused = await service.get_action(tenant_id, action.id)
    assert (paused.status, paused.reason) == (ActionStatus.SKIPPED, "paused")
    await _settled(service, action, clock)
    assert (await service.list_runs(tenant_id, rule_id=action.rule_id)).items == []
    assert await kv_value(db, tenant_id, "old") is None


async def test_a_claim_revoked_elsewhere_commits_no_effect(
    service: EngineService, tenant_id: str, clock: ManualClock, db: AsyncEngine
) -> None:
    """An edit made through another node does not reach this one: the run starts, but its
    completion finds the claim gone, so its kv write is not committed."""
    action = await _claimed_ahead(service, tenant_id, clock)
    assert action.rule_id is not None
    async with db.begin() as conn:  # what another node's edit transaction does
        revoked = await finish_pending_of_rule(
            conn, action.rule_id, "cancelled", "rule_changed", clock.now()
        )
    assert revoked == 2, "the claimed occurrence and the next one, planned at the claim"
    await _settled(service, action, clock)
    (run,) = (await service.list_runs(tenant_id, rule_id=action.rule_id)).items
    assert (run.action_id, run.outcome, run.committed) == (action.id, "ok", False)
    assert await kv_value(db, tenant_id, "old") is None, "its effect was not committed"
    assert (await service.get_action(tenant_id, action.id)).status is ActionStatus.CANCELLED


CLAIM_AHEAD_MS = CLAIM_AHEAD // timedelta(milliseconds=1)
BATCH_AHEAD_MS = BATCH_AHEAD // timedelta(milliseconds=1)
ECHO = "def main(ctx):\n    ctx.kv.set('ran', ctx.params['v'])\n    return ctx.params['v']\n"


async def _one_off_claimed_ahead(
    service: EngineService, tenant_id: str, clock: ManualClock, key: str
) -> Action:
    """A one-off (it echoes its params) that this node has claimed, before its due time."""
    run_at = clock.now() + timedelta(seconds=10)
    submitted = (
        await service.submit_action(
            tenant_id, run_at=run_at, key=key, code=ECHO, params={"v": "old"}
        )
    ).action
    await service.start()
    clock.set(run_at - CLAIM_AHEAD / 2)

    async def claimed() -> Action | None:
        action = await service.get_action(tenant_id, submitted.id)
        return action if action.status is ActionStatus.RUNNING else None

    return await eventually(claimed)


async def test_a_one_off_claimed_ahead_can_still_be_cancelled(
    service: EngineService, tenant_id: str, clock: ManualClock, db: AsyncEngine
) -> None:
    action = await _one_off_claimed_ahead(service, tenant_id, clock, "k")
    cancelled = await service.cancel_action(tenant_id, action.id)
    assert (cancelled.status, cancelled.reason) == (ActionStatus.CANCELLED, "user")
    await _settled(service, action, clock)
    assert (await service.list_runs(tenant_id)).items == []
    assert await kv_value(db, tenant_id, "ran") is None


async def test_a_key_resubmitted_inside_the_claim_window_updates_the_action(
    service: EngineService, tenant_id: str, clock: ManualClock, db: AsyncEngine
) -> None:
    action = await _one_off_claimed_ahead(service, tenant_id, clock, "k")
    again = (
        await service.submit_action(
            tenant_id, run_at=action.scheduled_at, key="k", code=ECHO, params={"v": "new"}
        )
    ).action
    assert again.id == action.id
    assert (again.status, again.attempt) == (ActionStatus.PENDING, 0), "claim revoked, not counted"

    async def succeeded() -> Action | None:
        found = await service.get_action(tenant_id, action.id)
        return found if found.status is ActionStatus.SUCCEEDED else None

    clock.set(action.scheduled_at + timedelta(milliseconds=1))
    await eventually(succeeded)
    (run,) = (await service.list_runs(tenant_id)).items
    assert (run.result, run.attempt, run.committed) == ("new", 1, True)
    assert await kv_value(db, tenant_id, "ran") == "new"


async def test_a_steady_stream_is_claimed_a_few_actions_at_a_time(
    service: EngineService, tenant_id: str, clock: ManualClock
) -> None:
    first = clock.now() + timedelta(seconds=10)
    offsets_ms = (0, 100, 200, CLAIM_AHEAD_MS + BATCH_AHEAD_MS + 50)
    submitted = [
        (
            await service.submit_action(
                tenant_id,
                run_at=first + timedelta(milliseconds=ms),
                code="def main(ctx):\n    pass\n",
            )
        ).action
        for ms in offsets_ms
    ]
    await service.start()
    clock.set(first - CLAIM_AHEAD / 2)

    async def statuses() -> list[ActionStatus] | None:
        found = [(await service.get_action(tenant_id, a.id)).status for a in submitted]
        return found if found[0] is ActionStatus.RUNNING else None

    claimed = await eventually(statuses)
    assert claimed == [ActionStatus.RUNNING] * 3 + [ActionStatus.PENDING], "one claim for three"
    assert (await service.list_runs(tenant_id)).items == [], "none started before its due time"
