"""Wall times a DST gap skips leave a trace: a skipped action (reason dst_gap) at the instant the
clock jumped, written with the chain's next occurrence and shown by the timeline.

Europe/Berlin springs forward on Sunday 2030-03-31 at 01:00 UTC (02:00 CET -> 03:00 CEST).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncEngine
from support.waiting import eventually

from engine.clock import ManualClock
from engine.domain.occurrences import MAX_GAP_TRACES
from engine.domain.records import RuleSpec
from engine.recurrence import DstGap, parse_schedule
from engine.recurrence.gaps import skipped_walls
from engine.service import EngineService
from engine.store.tables import actions

QUICK = "def main(ctx):\n    return ctx.scheduled_at\n"
JUMP = datetime(2030, 3, 31, 1, 0, tzinfo=UTC)
DAY = timedelta(days=1)


def _utc(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "gap", "walls"),
    [
        # RRULE, skip: the 02:30 of the spring-forward day does not exist and is dropped
        ("FREQ=DAILY;BYHOUR=2;BYMINUTE=30", DstGap.SKIP, ["02:30"]),
        # RRULE, shift: it runs at 03:30 instead, nothing is skipped
        ("FREQ=DAILY;BYHOUR=2;BYMINUTE=30", DstGap.SHIFT, []),
        # RRULE, skip, hourly: only 02:00 is missing (03:00 is a real occurrence at the jump)
        ("FREQ=HOURLY;BYMINUTE=0", DstGap.SKIP, ["02:00"]),
        # cron, fixed time: Vixie cron runs it right after the jump (03:00), nothing is skipped
        ("30 2 * * *", DstGap.SHIFT, []),
        # cron, wildcard: follows the wall clock, every time inside the gap is skipped
        ("*/15 * * * *", DstGap.SHIFT, ["02:00", "02:15", "02:30", "02:45"]),
    ],
    ids=["rrule-skip", "rrule-shift", "rrule-hourly-skip", "cron-fixed", "cron-wildcard"],
)
def test_skipped_walls_of_the_spring_forward_day(text: str, gap: DstGap, walls: list[str]) -> None:
    schedule = parse_schedule(text, "Europe/Berlin", anchor=_utc("2030-01-01"), dst_gap=gap)
    found = skipped_walls(schedule, _utc("2030-03-30"), _utc("2030-04-02"), 100)
    assert [f"{s.wall:%H:%M}" for s in found] == walls
    assert all(s.wall.date().isoformat() == "2030-03-31" and s.at == JUMP for s in found)


def test_skipped_walls_are_bounded_and_need_a_jump_in_the_span() -> None:
    schedule = parse_schedule("*/15 * * * *", "Europe/Berlin", anchor=_utc("2030-01-01"))
    assert len(skipped_walls(schedule, _utc("2030-03-30"), _utc("2030-04-02"), 3)) == 3
    # the jump itself is the last instant of a span that ends there, and not in one that starts
    assert len(skipped_walls(schedule, JUMP - DAY, JUMP, 100)) == 4
    assert skipped_walls(schedule, JUMP, JUMP + DAY, 100) == []
    # autumn's fall-back repeats wall times, it skips none
    assert skipped_walls(schedule, _utc("2030-10-26"), _utc("2030-10-28"), 100) == []
    assert MAX_GAP_TRACES >= 60  # a `* * * * *` job loses 60 wall times in one gap


async def _run_through(
    service: EngineService, tenant_id: str, rule_id: str, clock: ManualClock, at: datetime
) -> None:
    """Move the clock to `at`, when the rule is due, and wait until that occurrence ran."""
    clock.set(at)

    async def ran() -> bool:
        entries = await service.timeline(tenant_id, rule_id, at, at + timedelta(seconds=1))
        return any(e.fate == "succeeded" for e in entries)

    await eventually(ran)


async def _fates(
    service: EngineService, tenant_id: str, rule_id: str, start: datetime, end: datetime
) -> list[tuple[str, str, str | None]]:
    entries = await service.timeline(tenant_id, rule_id, start, end)
    return [(f"{e.scheduled_at.astimezone(UTC):%m-%dT%H:%M}", e.fate, e.reason) for e in entries]


async def test_daily_0230_berlin_skip_records_the_gap_and_runs_the_next_day(
    service: EngineService, tenant_id: str, clock: ManualClock, db: AsyncEngine
) -> None:
    clock.set(_utc("2030-03-30"))
    spec = RuleSpec(
        name="n",
        schedule="FREQ=DAILY;BYHOUR=2;BYMINUTE=30",
        timezone="Europe/Berlin",
        dst_gap="skip",
        code=QUICK,
    )
    rule = await service.create_rule(tenant_id, spec)
    await service.start()
    await _run_through(service, tenant_id, rule.id, clock, _utc("2030-03-30T01:30"))  # CET
    await _run_through(service, tenant_id, rule.id, clock, _utc("2030-04-01T00:30"))  # CEST
    fates = await _fates(service, tenant_id, rule.id, _utc("2030-03-30"), _utc("2030-04-01T12:00"))
    assert fates == [
        ("03-30T01:30", "succeeded", None),
        ("03-31T01:00", "skipped", "dst_gap"),
        ("04-01T00:30", "succeeded", None),
    ]
    async with db.connect() as conn:
        rows = (
            await conn.execute(
                select(actions).where(actions.c.rule_id == rule.id).order_by(actions.c.id)
            )
        ).mappings()
        by_time = {r["scheduled_at"]: r for r in rows}
    trace, planned_with = by_time[JUMP], by_time[_utc("2030-04-01T00:30")]
    assert (trace["status"], trace["reason"], trace["attempt"]) == ("skipped", "dst_gap", 0)
    assert trace["finished_at"] is not None
    # written in the step that finished 03-30 and planned 04-01, before the jump happened
    assert trace["created_at"] == planned_with["created_at"] == _utc("2030-03-30T01:30")


async def test_daily_0230_berlin_shift_runs_0330_and_skips_nothing(
    service: EngineService, tenant_id: str, clock: ManualClock
) -> None:
    clock.set(_utc("2030-03-30"))
    spec = RuleSpec(
        name="n", schedule="FREQ=DAILY;BYHOUR=2;BYMINUTE=30", timezone="Europe/Berlin", code=QUICK
    )
    rule = await service.create_rule(tenant_id, spec)
    await service.start()
    for at in ("2030-03-30T01:30", "2030-03-31T01:30", "2030-04-01T00:30"):
        await _run_through(service, tenant_id, rule.id, clock, _utc(at))
    fates = await _fates(service, tenant_id, rule.id, _utc("2030-03-30"), _utc("2030-04-01T12:00"))
    assert fates == [
        ("03-30T01:30", "succeeded", None),
        ("03-31T01:30", "succeeded", None),  # 02:30 CET does not exist: 03:30 CEST
        ("04-01T00:30", "succeeded", None),
    ]


async def test_hourly_cron_trace_shares_the_jump_with_the_real_0300(
    service: EngineService, tenant_id: str, clock: ManualClock
) -> None:
    """`0 * * * *` follows the wall clock: 02:00 is skipped, 03:00 CEST (the same instant as
    the jump) runs; the timeline lists both, the trace first."""
    clock.set(_utc("2030-03-30T23:30"))
    spec = RuleSpec(name="h", schedule="0 * * * *", timezone="Europe/Berlin", code=QUICK)
    rule = await service.create_rule(tenant_id, spec)
    await service.start()
    for at in ("2030-03-31T00:00", "2030-03-31T01:00"):
        await _run_through(service, tenant_id, rule.id, clock, _utc(at))
    fates = await _fates(service, tenant_id, rule.id, _utc("2030-03-30T23:30"), JUMP + DAY / 48)
    assert fates == [
        ("03-31T00:00", "succeeded", None),  # 01:00 CET
        ("03-31T01:00", "skipped", "dst_gap"),  # 02:00, which does not exist
        ("03-31T01:00", "succeeded", None),  # 03:00 CEST
    ]
