"""Rule writes keep the traces true: resuming records what the pause skipped, a change, pause or
delete removes the DST gap traces planned ahead, and planning a first occurrence traces the gaps
before it.

Europe/Berlin springs forward on Sunday 2030-03-31 at 01:00 UTC (02:00 CET -> 03:00 CEST).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncEngine
from support.waiting import eventually

from engine.clock import ManualClock
from engine.domain.occurrences import MAX_PAUSED_TRACES
from engine.domain.records import RuleSpec
from engine.service import EngineService
from engine.store.tables import actions

CODE = "def main(ctx):\n    return 1\n"
JUMP = datetime(2030, 3, 31, 1, 0, tzinfo=UTC)
BERLIN_0230_SKIP = RuleSpec(
    name="b",
    schedule="FREQ=DAILY;BYHOUR=2;BYMINUTE=30",
    timezone="Europe/Berlin",
    dst_gap="skip",
    code=CODE,
)

Fates = list[tuple[str, str, str | None]]


def _utc(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


async def _fates(
    service: EngineService, tenant_id: str, rule_id: str, start: datetime, end: datetime
) -> Fates:
    entries = await service.timeline(tenant_id, rule_id, start, end)
    return [(f"{e.scheduled_at.astimezone(UTC):%m-%dT%H:%M}", e.fate, e.reason) for e in entries]


async def _gap_traces(db: AsyncEngine, rule_id: str) -> list[tuple[datetime, int]]:
    """(scheduled_at, rule_version) of the rule's dst_gap traces, whatever became of the rule."""
    query = select(actions.c.scheduled_at, actions.c.rule_version).where(
        actions.c.rule_id == rule_id, actions.c.reason == "dst_gap"
    )
    async with db.connect() as conn:
        return [(at, version) for at, version in await conn.execute(query)]


async def _pause(service: EngineService, tenant_id: str, rule_id: str) -> None:
    await service.pause_rule(tenant_id, rule_id)


async def _disable(service: EngineService, tenant_id: str, rule_id: str) -> None:
    await service.update_rule(tenant_id, rule_id, {"enabled": False})


@pytest.mark.parametrize("pause", [_pause, _disable], ids=["pause", "patch-enabled-false"])
async def test_daily_rule_paused_three_days_records_each_day_on_resume(
    service: EngineService,
    tenant_id: str,
    clock: ManualClock,
    pause: Callable[[EngineService, str, str], Awaitable[None]],
) -> None:
    clock.set(_utc("2030-01-07T09:00"))
    rule = await service.create_rule(
        tenant_id, RuleSpec(name="d", schedule="0 12 * * *", code=CODE)
    )
    await pause(service, tenant_id, rule.id)
    clock.set(_utc("2030-01-10T09:00"))
    resumed = await service.resume_rule(tenant_id, rule.id)
    assert resumed.next_run_at == _utc("2030-01-10T12:00")  # from now, not from the pause
    fates = await _fates(service, tenant_id, rule.id, _utc("2030-01-07"), _utc("2030-01-11"))
    assert fates == [
        ("01-07T12:00", "paused", "paused"),  # pending when paused, finished by the pause
        ("01-08T12:00", "paused", "paused"),  # recorded on resume
        ("01-09T12:00", "paused", "paused"),  # recorded on resume
        ("01-10T12:00", "pending", None),
    ]
    skipped = (await service.list_actions(tenant_id, rule_id=rule.id, status="skipped")).items
    # each trace carries the version the rule had then: 1 before the pause, 2 while paused
    assert sorted((a.scheduled_at.day, a.rule_version) for a in skipped) == [(7, 1), (8, 2), (9, 2)]


async def test_a_rule_still_paused_shows_every_occurrence_since_the_pause_as_paused(
    service: EngineService, tenant_id: str, clock: ManualClock
) -> None:
    clock.set(_utc("2030-01-07T09:00"))
    rule = await service.create_rule(
        tenant_id, RuleSpec(name="d", schedule="0 12 * * *", code=CODE)
    )
    await service.pause_rule(tenant_id, rule.id)
    clock.set(_utc("2030-01-10T09:00"))  # still paused: nothing was recorded since
    fates = await _fates(service, tenant_id, rule.id, _utc("2030-01-07"), _utc("2030-01-13"))
    assert fates == [
        ("01-07T12:00", "paused", "paused"),  # pending when paused, finished by the pause
        ("01-08T12:00", "paused", "paused"),  # since the pause, not "missed"
        ("01-09T12:00", "paused", "paused"),
        ("01-10T12:00", "paused", "paused"),  # ahead, not "not_yet_due": it will not run
        ("01-11T12:00", "paused", "paused"),
        ("01-12T12:00", "paused", "paused"),
    ]


async def test_rule_created_disabled_is_paused_from_creation_and_to_the_resume_instant(
    service: EngineService, tenant_id: str, clock: ManualClock
) -> None:
    clock.set(_utc("2030-01-07T09:00"))
    spec = RuleSpec(name="d", schedule="0 12 * * *", code=CODE, enabled=False)
    rule = await service.create_rule(tenant_id, spec)
    clock.set(_utc("2030-01-09T12:00"))
    resumed = await service.update_rule(tenant_id, rule.id, {"enabled": True})
    assert resumed.next_run_at == _utc("2030-01-10T12:00")
    fates = await _fates(service, tenant_id, rule.id, _utc("2030-01-07"), _utc("2030-01-11"))
    assert fates == [
        ("01-07T12:00", "paused", "paused"),
        ("01-08T12:00", "paused", "paused"),
        ("01-09T12:00", "paused", "paused"),  # due at the resume instant: planning starts after
        ("01-10T12:00", "pending", None),
    ]


async def test_resume_records_the_first_hundred_occurrences_of_a_long_pause(
    service: EngineService, tenant_id: str, clock: ManualClock
) -> None:
    clock.set(_utc("2030-01-07T09:00"))
    spec = RuleSpec(name="f", schedule="*/5 * * * *", code=CODE)
    rule = await service.create_rule(tenant_id, spec)
    await service.pause_rule(tenant_id, rule.id)  # finishes 09:05
    clock.set(_utc("2030-01-08T09:00"))
    await service.resume_rule(tenant_id, rule.id)
    entries = await service.timeline(tenant_id, rule.id, _utc("2030-01-07"), _utc("2030-01-08"))
    paused = [e.scheduled_at for e in entries if e.fate == "paused"]
    assert len(paused) == 1 + MAX_PAUSED_TRACES
    assert paused[0] == _utc("2030-01-07T09:05")
    assert paused[-1] == _utc("2030-01-07T09:05") + MAX_PAUSED_TRACES * timedelta(minutes=5)
    later = {e.fate for e in entries if e.scheduled_at > paused[-1]}
    assert later == {"missed"}


async def test_pause_over_a_dst_gap_records_the_gap_on_resume(
    service: EngineService, tenant_id: str, clock: ManualClock
) -> None:
    clock.set(_utc("2030-03-29T12:00"))
    rule = await service.create_rule(tenant_id, BERLIN_0230_SKIP)
    await service.pause_rule(tenant_id, rule.id)
    clock.set(_utc("2030-04-01T00:00"))
    await service.resume_rule(tenant_id, rule.id)
    fates = await _fates(service, tenant_id, rule.id, _utc("2030-03-29"), _utc("2030-04-01T12:00"))
    assert fates == [
        ("03-30T01:30", "paused", "paused"),  # 02:30 CET, finished by the pause
        ("03-31T01:00", "skipped", "dst_gap"),  # 02:30 does not exist: it would not have run
        ("04-01T00:30", "pending", None),  # 02:30 CEST
    ]


@pytest.mark.parametrize(
    ("spec", "created_at", "until", "expected"),
    [
        # the daily 02:30 of the spring-forward day is dropped: traced before the next day's
        (
            BERLIN_0230_SKIP,
            "2030-03-30T12:00",
            "2030-04-01T12:00",
            [("03-31T01:00", "skipped", "dst_gap"), ("04-01T00:30", "pending", None)],
        ),
        # hourly cron follows the wall clock: 02:00 is dropped, 03:00 CEST runs at the jump
        (
            RuleSpec(name="h", schedule="0 * * * *", timezone="Europe/Berlin", code=CODE),
            "2030-03-31T00:30",
            "2030-03-31T01:01",
            [("03-31T01:00", "skipped", "dst_gap"), ("03-31T01:00", "pending", None)],
        ),
    ],
    ids=["rrule-daily-skip", "cron-hourly"],
)
async def test_rule_created_just_before_a_dst_gap_traces_it(
    service: EngineService,
    tenant_id: str,
    clock: ManualClock,
    spec: RuleSpec,
    created_at: str,
    until: str,
    expected: Fates,
) -> None:
    clock.set(_utc(created_at))
    rule = await service.create_rule(tenant_id, spec)
    assert await _fates(service, tenant_id, rule.id, _utc("2030-03-30"), _utc(until)) == expected


async def _rename(service: EngineService, tenant_id: str, rule_id: str) -> None:
    await service.update_rule(tenant_id, rule_id, {"name": "renamed"})


async def _shift(service: EngineService, tenant_id: str, rule_id: str) -> None:
    await service.update_rule(tenant_id, rule_id, {"dst_gap": "shift"})


async def _delete(service: EngineService, tenant_id: str, rule_id: str) -> None:
    await service.delete_rule(tenant_id, rule_id)


@pytest.mark.parametrize(
    ("write", "left"),
    [
        (_rename, [(JUMP, 2)]),  # still skips the gap: one trace, of the new version
        (_shift, []),  # now runs at 03:30 CEST: nothing is skipped
        (_pause, []),
        (_delete, []),
    ],
    ids=["rename", "dst-gap-shift", "pause", "delete"],
)
async def test_rule_write_replaces_the_gap_trace_planned_ahead(
    service: EngineService,
    tenant_id: str,
    clock: ManualClock,
    db: AsyncEngine,
    write: Callable[[EngineService, str, str], Awaitable[None]],
    left: list[tuple[datetime, int]],
) -> None:
    clock.set(_utc("2030-03-30T12:00"))
    rule = await service.create_rule(tenant_id, BERLIN_0230_SKIP)
    assert await _gap_traces(db, rule.id) == [(JUMP, 1)]
    await write(service, tenant_id, rule.id)
    assert await _gap_traces(db, rule.id) == left


async def test_change_removes_the_gap_trace_the_loop_wrote_ahead(
    service: EngineService, tenant_id: str, clock: ManualClock, db: AsyncEngine
) -> None:
    clock.set(_utc("2030-03-30T00:00"))
    rule = await service.create_rule(tenant_id, BERLIN_0230_SKIP)
    assert await _gap_traces(db, rule.id) == []  # the first occurrence lies before the gap
    await service.start()
    clock.set(_utc("2030-03-30T01:30"))

    async def ran() -> Fates:
        start, end = _utc("2030-03-30T01:30"), _utc("2030-03-30T01:31")
        return [
            f for f in await _fates(service, tenant_id, rule.id, start, end) if f[1] == "succeeded"
        ]

    await eventually(ran)
    assert await _gap_traces(db, rule.id) == [(JUMP, 1)]  # written with the next occurrence
    await service.update_rule(tenant_id, rule.id, {"dst_gap": "shift"})
    fates = await _fates(service, tenant_id, rule.id, _utc("2030-03-30"), _utc("2030-04-01"))
    assert fates == [
        ("03-30T01:30", "succeeded", None),
        ("03-31T01:30", "pending", None),  # 03:30 CEST
    ]
    assert await _gap_traces(db, rule.id) == []
