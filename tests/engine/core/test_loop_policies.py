"""Policies on a controllable clock: misfire (run_all / run_latest / skip) with grace, overlap,
quota, and versioning — each shown by what the timeline and the runs record."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import TextClause, select, text, update
from sqlalchemy.ext.asyncio import AsyncEngine
from support.moments import START
from support.waiting import eventually

from engine.clock import ManualClock
from engine.domain.records import RuleSpec
from engine.service import EngineService
from engine.store.tables import actions, events
from tenants.tables import tenants

QUICK = "def main(ctx):\n    return ctx.scheduled_at\n"
#: A run of about two seconds: long enough that the next minute is claimed while it is still
#: going, even on a loaded machine (a run that has ended no longer counts for the overlap
#: policy, even before it is recorded: decision 146).
SLOW = "def main(ctx):\n    n = 0\n    for i in range(12000000):\n        n += 1\n    return n\n"
MINUTE = timedelta(minutes=1)


async def _settled(
    service: EngineService, tenant_id: str, rule_id: str
) -> list[tuple[int, str, str | None]]:
    """(minute, fate, reason) of 09:01-09:06 once nothing of them is pending or running."""
    entries = await service.timeline(
        tenant_id, rule_id, START, START + 6 * MINUTE + timedelta(seconds=1)
    )
    return [(e.scheduled_at.minute, e.fate, e.reason) for e in entries]


async def _after_outage(
    service: EngineService, tenant_id: str, clock: ManualClock, **policy: object
) -> list[tuple[int, str, str | None]]:
    """A rule due every minute from 09:01; the engine starts at 09:05:30 (09:01-09:05 missed)."""
    rule = await service.create_rule(
        tenant_id, RuleSpec(name="m", schedule="* * * * *", code=QUICK, **policy)
    )  # type: ignore[arg-type]
    clock.set(START + 5 * MINUTE + timedelta(seconds=30))
    await service.start()

    async def settled() -> object:
        found = await _settled(service, tenant_id, rule.id)
        done = [f for f in found if f[0] <= 5]
        return (
            found
            if len(done) == 5 and all(f not in {"pending", "running"} for _, f, _ in done)
            else None
        )

    return await eventually(settled)  # type: ignore[return-value]  # type: ignore[return-value]


async def test_run_latest_runs_once_for_all_missed(
    service: EngineService, tenant_id: str, clock: ManualClock
) -> None:
    fates = await _after_outage(service, tenant_id, clock, misfire_policy="run_latest")
    assert fates[:5] == [(m, "skipped", "misfire") for m in range(1, 5)] + [(5, "succeeded", None)]
    assert fates[5][:2] == (6, "pending")


async def test_skip_goes_to_the_next_future_occurrence(
    service: EngineService, tenant_id: str, clock: ManualClock
) -> None:
    fates = await _after_outage(
        service, tenant_id, clock, misfire_policy="skip", misfire_grace_s=60
    )
    assert fates[:5] == [(m, "skipped", "misfire") for m in range(1, 6)]
    assert fates[5][:2] == (6, "pending")


async def test_run_all_catches_up_within_grace_and_expires_the_rest(
    service: EngineService, tenant_id: str, clock: ManualClock, db: AsyncEngine
) -> None:
    fates = await _after_outage(
        service, tenant_id, clock, misfire_policy="run_all", misfire_grace_s=120
    )
    # late by 270, 210, 150 s: past the 120 s grace; 90 and 30 s: run
    assert fates[:5] == [
        (1, "expired", "grace"),
        (2, "expired", "grace"),
        (3, "expired", "grace"),
        (4, "succeeded", None),
        (5, "succeeded", None),
    ]
    async with db.connect() as conn:
        expired = (
            await conn.execute(select(events.c.type).where(events.c.type == "action.expired"))
        ).all()
    assert len(expired) == 3


@pytest.mark.parametrize(
    ("overlap", "second"), [("skip", ("skipped", "overlap")), ("queue_one", ("succeeded", None))]
)
async def test_overlap_while_the_previous_run_is_going(
    service: EngineService,
    tenant_id: str,
    clock: ManualClock,
    overlap: str,
    second: tuple[str, str | None],
) -> None:
    spec = RuleSpec(
        name="o", schedule="* * * * *", code=SLOW, overlap_policy=overlap, timeout_ms=30000
    )  # type: ignore[arg-type]
    rule = await service.create_rule(tenant_id, spec)
    await service.start()
    clock.set(START + MINUTE)

    async def running() -> object:
        return (await service.list_actions(tenant_id, status="running")).items

    await eventually(running)
    clock.set(START + 2 * MINUTE)  # 09:02 comes due while 09:01 still runs

    async def both_settled() -> object:
        found = await _settled(service, tenant_id, rule.id)
        first_two = [f for f in found if f[0] in (1, 2)]
        return found if all(f[1] not in {"pending", "running"} for f in first_two) else None

    fates = await eventually(both_settled, timeout_s=60)
    assert fates[0] == (1, "succeeded", None)
    assert fates[1] == (2, *second)


#: Recordings of runs waiting for the lock on `runs` (the completer, held back by the test;
#: the retention's deletes wait there too).
_RECORDING_WAITS = text(
    "SELECT count(*) FROM pg_locks l JOIN pg_class c ON l.relation = c.oid"
    " JOIN pg_stat_activity a ON a.pid = l.pid"
    " WHERE c.relname = 'runs' AND NOT l.granted AND a.query LIKE 'INSERT INTO runs%'"
)


@pytest.mark.parametrize(
    "database_url", [pytest.param("postgresql", marks=pytest.mark.postgres)], indirect=True
)
async def test_a_run_that_ended_is_not_overlapped_while_its_recording_waits(
    service: EngineService, tenant_id: str, clock: ManualClock, db: AsyncEngine
) -> None:
    """A database slow to record (here: another transaction locks `runs`, so the completer
    waits with the 09:01 run ended) must not turn 09:02 into an overlap skip: the run is
    over, only its record is late."""
    rule = await service.create_rule(
        tenant_id, RuleSpec(name="o", schedule="* * * * *", code=QUICK, overlap_policy="skip")
    )  # type: ignore[arg-type]
    await service.start()
    async with db.connect() as holder:
        await holder.execute(text("LOCK TABLE runs IN EXCLUSIVE MODE"))  # reads still pass
        clock.set(START + MINUTE)
        await eventually(lambda: _scalar(db, _RECORDING_WAITS))
        clock.set(START + 2 * MINUTE)
        await eventually(lambda: _attempted(db, rule.id, 2))
        await holder.rollback()

    async def both_settled() -> object:
        found = await _settled(service, tenant_id, rule.id)
        first_two = [f for f in found if f[0] in (1, 2)]
        return found if all(f[1] not in {"pending", "running"} for f in first_two) else None

    fates = await eventually(both_settled)
    assert fates[:2] == [(1, "succeeded", None), (2, "succeeded", None)]


async def _scalar(db: AsyncEngine, query: TextClause) -> object:
    """One value, read in a transaction of its own (PostgreSQL's activity view is read once
    per transaction)."""
    async with db.connect() as conn:
        return await conn.scalar(query)


async def _attempted(db: AsyncEngine, rule_id: str, minute: int) -> bool:
    """Whether the rule's occurrence of 09:`minute` left pending (claimed, or skipped)."""
    async with db.connect() as conn:
        status = await conn.scalar(
            select(actions.c.status).where(
                actions.c.rule_id == rule_id,
                actions.c.scheduled_at == START + minute * MINUTE,
            )
        )
    return status is not None and status != "pending"


async def test_quota_skips_runs_past_the_daily_limit(
    service: EngineService, tenant_id: str, clock: ManualClock, db: AsyncEngine
) -> None:
    async with db.begin() as conn:
        await conn.execute(
            update(tenants).where(tenants.c.id == tenant_id).values(max_runs_per_day=1)
        )
    rule = await service.create_rule(
        tenant_id, RuleSpec(name="q", schedule="* * * * *", code=QUICK)
    )
    await service.start()
    clock.set(START + MINUTE)

    async def minute(n: int, fate: str) -> object:
        found = await _settled(service, tenant_id, rule.id)
        return found if (n, fate) in {(m, f) for m, f, _ in found} else None

    await eventually(lambda: minute(1, "succeeded"))
    clock.set(START + 2 * MINUTE)
    fates = await eventually(lambda: minute(2, "quota"))
    assert (2, "quota", "quota") in fates  # type: ignore[operator]


async def test_edit_between_occurrences_never_runs_old_code(
    service: EngineService, tenant_id: str, clock: ManualClock
) -> None:
    rule = await service.create_rule(
        tenant_id,
        RuleSpec(name="v", schedule="* * * * *", code="def main(ctx):\n    return 'old'\n"),
    )
    await service.start()
    clock.set(START + MINUTE)

    async def results() -> list[object]:
        return [r.result for r in (await service.list_runs(tenant_id, rule_id=rule.id)).items]

    await eventually(results)
    await service.update_rule(tenant_id, rule.id, {"code": "def main(ctx):\n    return 'new'\n"})
    for minute in (2, 3):
        clock.set(START + minute * MINUTE)
        await eventually(lambda n=minute: _count_is(results, n - 1 + 1))
    assert sorted(await results(), key=str) == ["new", "new", "old"]


async def _count_is(results: object, n: int) -> bool:
    return len(await results()) >= n  # type: ignore[operator]
