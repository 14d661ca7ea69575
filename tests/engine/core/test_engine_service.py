"""The service's writes and reads on both databases (the loop is not started here)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from engine.domain.records import ActionStatus, RuleSpec
from engine.domain.rule_filters import RuleFilter
from engine.errors import (
    ActionNotFound,
    InvalidRule,
    InvalidState,
    QuotaExceeded,
    RuleNotFound,
    StaleVersion,
)
from engine.service import EngineService

CODE = "def main(ctx):\n    return 1\n"


def spec(**changes: object) -> RuleSpec:
    values = {"name": "tick", "schedule": "*/5 * * * *", "code": CODE} | changes
    return RuleSpec(**values)  # type: ignore[arg-type]


async def test_create_rule_plans_its_first_occurrence(
    service: EngineService, tenant_id: str
) -> None:
    rule = await service.create_rule(tenant_id, spec())
    assert rule.version == 1
    assert rule.next_run_at is not None and rule.next_run_at.minute == 5
    assert "5 minutes" in rule.schedule_text
    page = await service.list_actions(tenant_id, rule_id=rule.id)
    assert [a.status for a in page.items] == [ActionStatus.PENDING]


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"schedule": "every blue moon"}, "schedule"),  # not a schedule
        ({"code": "def main(ctx):\n    return (\n"}, "code"),  # does not compile
        ({"timezone": "Mars/Olympus"}, "timezone"),  # unknown zone
        ({"misfire_policy": "sometimes"}, "misfire_policy"),  # not a choice
        ({"schedule": "2001-01-01T00:00:00Z"}, "schedule"),  # never occurs again
    ],
    ids=["schedule", "code", "timezone", "policy", "past-once"],
)
async def test_invalid_rule_names_the_field_and_saves_nothing(
    service: EngineService, tenant_id: str, changes: dict[str, object], field: str
) -> None:
    with pytest.raises(InvalidRule) as caught:
        await service.create_rule(tenant_id, spec(**changes))
    assert caught.value.field == field
    assert (await service.list_rules(tenant_id)).items == []


async def test_quota_caps_timeout(service: EngineService, tenant_id: str) -> None:
    with pytest.raises(QuotaExceeded) as caught:
        await service.create_rule(tenant_id, spec(timeout_ms=10_000_000 // 10))
    assert caught.value.quota == "max_timeout_ms"


async def test_update_bumps_version_and_cancels_old_pending(
    service: EngineService, tenant_id: str
) -> None:
    rule = await service.create_rule(tenant_id, spec())
    updated = await service.update_rule(tenant_id, rule.id, {"schedule": "*/10 * * * *"}, 1)
    assert updated.version == 2
    statuses = {a.status for a in (await service.list_actions(tenant_id, rule_id=rule.id)).items}
    assert statuses == {ActionStatus.PENDING, ActionStatus.CANCELLED}
    with pytest.raises(StaleVersion) as caught:
        await service.update_rule(tenant_id, rule.id, {"name": "x"}, 1)
    assert caught.value.current_version == 2


async def test_pause_skips_pending_and_resume_plans_again(
    service: EngineService, tenant_id: str
) -> None:
    rule = await service.create_rule(tenant_id, spec())
    paused = await service.pause_rule(tenant_id, rule.id)
    assert not paused.enabled and paused.next_run_at is None
    skipped = (await service.list_actions(tenant_id, status="skipped")).items
    assert [a.reason for a in skipped] == ["paused"]
    resumed = await service.resume_rule(tenant_id, rule.id)
    assert resumed.enabled and resumed.next_run_at is not None


async def test_delete_hides_rule_and_cancels_pending(
    service: EngineService, tenant_id: str
) -> None:
    rule = await service.create_rule(tenant_id, spec())
    await service.delete_rule(tenant_id, rule.id)
    with pytest.raises(RuleNotFound):
        await service.get_rule(tenant_id, rule.id)
    actions = (await service.list_actions(tenant_id)).items
    assert [(a.status, a.reason) for a in actions] == [(ActionStatus.CANCELLED, "rule_deleted")]


async def test_other_tenant_sees_nothing(service: EngineService, tenant_id: str, db) -> None:  # type: ignore[no-untyped-def]
    from tenants.registry import create_tenant

    async with db.begin() as conn:
        other, _ = await create_tenant(conn, "other")
    rule = await service.create_rule(tenant_id, spec())
    with pytest.raises(RuleNotFound):
        await service.get_rule(other.id, rule.id)
    action = (await service.list_actions(tenant_id)).items[0]
    with pytest.raises(ActionNotFound):
        await service.get_action(other.id, action.id)


async def test_submit_with_key_updates_the_pending_action(
    service: EngineService, tenant_id: str, clock
) -> None:  # type: ignore[no-untyped-def]
    first = (
        await service.submit_action(
            tenant_id, run_at=clock.now() + timedelta(hours=1), key="k1", code=CODE
        )
    ).action
    again = (
        await service.submit_action(
            tenant_id, run_at=clock.now() + timedelta(hours=2), key="k1", code=CODE
        )
    ).action
    assert again.id == first.id
    assert again.due_at == clock.now() + timedelta(hours=2)
    cancelled = await service.cancel_action(tenant_id, first.id)
    assert cancelled.status is ActionStatus.CANCELLED
    with pytest.raises(InvalidState):
        await service.cancel_action(tenant_id, first.id)
    retried = await service.retry_action(tenant_id, first.id)
    assert retried.status is ActionStatus.PENDING and retried.id != first.id


async def test_list_rules_pages_with_cursor(service: EngineService, tenant_id: str) -> None:
    for n in range(5):
        await service.create_rule(tenant_id, spec(name=f"r{n}"))
    first = await service.list_rules(tenant_id, limit=3)
    assert len(first.items) == 3 and first.next_cursor is not None
    second = await service.list_rules(tenant_id, limit=3, cursor=first.next_cursor)
    assert len(second.items) == 2 and second.next_cursor is None
    found = await service.list_rules(tenant_id, selection=RuleFilter(search="R4"))
    assert [r.name for r in found.items] == ["r4"]


async def test_trigger_and_backfill_do_not_fork_the_timeline(
    service: EngineService, tenant_id: str, clock
) -> None:  # type: ignore[no-untyped-def]
    rule = await service.create_rule(tenant_id, spec())
    triggered = await service.trigger_rule(tenant_id, rule.id)
    assert triggered.status is ActionStatus.PENDING and triggered.key is not None
    start = clock.now()
    clock.advance(timedelta(minutes=31))
    backfilled = await service.backfill_rule(tenant_id, rule.id, start, clock.now())
    assert [a.scheduled_at.minute for a in backfilled] == [0, 5, 10, 15, 20, 25, 30]
    again = await service.backfill_rule(tenant_id, rule.id, start, clock.now())
    assert [a.id for a in again] == [a.id for a in backfilled]
    entries = await service.timeline(tenant_id, rule.id, start, clock.now() + timedelta(minutes=11))
    fates = [e.fate for e in entries]
    # 09:00 (trigger + backfill), 09:05 (chain + backfill), 09:10-09:30 backfilled, then unplanned
    assert fates == ["pending"] * 7 + ["not_yet_due"] * 2


async def test_ids_and_cursors_beyond_64_bits_are_not_found_or_invalid(
    service: EngineService, tenant_id: str
) -> None:
    huge = 10**30
    with pytest.raises(ActionNotFound):
        await service.get_action(tenant_id, huge)
    with pytest.raises(InvalidRule) as caught:
        await service.list_runs(tenant_id, cursor="MTIzNDU2Nzg5MDEyMzQ1Njc4OTAxMjM0NTY3ODk")
    assert caught.value.field == "cursor"


async def test_naive_instants_are_invalid_not_errors(
    service: EngineService, tenant_id: str
) -> None:
    from datetime import datetime

    rule = await service.create_rule(tenant_id, spec())
    naive = datetime(2030, 1, 1, 9, 0)
    with pytest.raises(InvalidRule) as caught:
        await service.backfill_rule(tenant_id, rule.id, naive, naive + timedelta(hours=1))
    assert caught.value.field == "start"
    with pytest.raises(InvalidRule):
        await service.list_runs(tenant_id, since=naive)
    with pytest.raises(InvalidRule):
        await service.timeline(tenant_id, rule.id, naive, naive + timedelta(hours=1))


async def test_a_timeline_of_more_actions_than_its_bound_is_refused(
    service: EngineService, tenant_id: str, db, clock
) -> None:  # type: ignore[no-untyped-def]
    from engine.service.insights import MAX_TIMELINE_ACTIONS
    from engine.store.actions import insert_actions

    rule = await service.create_rule(tenant_id, spec(schedule="* * * * *"))
    start = clock.now() + timedelta(hours=1)
    at = [start + timedelta(minutes=n) for n in range(MAX_TIMELINE_ACTIONS + 1)]
    rows = [
        {"tenant_id": tenant_id, "rule_id": rule.id, "rule_version": 1, "scheduled_at": t,
         "due_at": t, "status": "skipped", "reason": "misfire", "attempt": 0,
         "max_attempts": 1, "priority": 0, "created_at": start, "finished_at": start}
        for t in at
    ]  # fmt: skip
    async with db.begin() as conn:
        await insert_actions(conn, rows)
    with pytest.raises(InvalidRule) as caught:
        await service.timeline(tenant_id, rule.id, start, at[-1] + timedelta(seconds=1))
    assert caught.value.field == "end" and str(MAX_TIMELINE_ACTIONS) in str(caught.value)
    entries = await service.timeline(tenant_id, rule.id, start, at[-1])
    assert len(entries) == MAX_TIMELINE_ACTIONS, "one action fewer: read in full"
