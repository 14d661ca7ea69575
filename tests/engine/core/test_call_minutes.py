"""The per-tenant minute quota of capability calls, counted in the database: concurrent callers
(each its own connection and transaction, as runs on several nodes are) never count past the
quota, a full minute refuses exactly the excess, the next minute starts again from zero, and a
caller whose clock reading is behind another's across a minute's turn counts in the newest
minute instead of starting its own again."""

from __future__ import annotations

import asyncio
import uuid
from collections import Counter
from datetime import UTC, datetime, timedelta

import uvloop
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncEngine

from engine.store import call_minutes
from engine.store.tables import capability_call_minutes
from tenants.db import create_engine
from tenants.registry import create_tenant

START = datetime(2026, 11, 26, 9, 0, 0, tzinfo=UTC)
#: Per minute (counted from START), the sizes of the bursts of concurrent calls made in it.
minutes = st.lists(st.lists(st.integers(1, 12), min_size=1, max_size=3), min_size=1, max_size=3)


async def _take(db: AsyncEngine, tenant_id: str, at: datetime, quota: int) -> bool:
    async with db.begin() as conn:
        return await call_minutes.take(conn, tenant_id, at, quota)


async def _flood(database_url: str, quota: int, bursts: list[list[int]]) -> None:
    db = create_engine(database_url)
    try:
        async with db.begin() as conn:
            tenant, _ = await create_tenant(conn, f"t-{uuid.uuid4().hex}")
        for minute, sizes in enumerate(bursts):
            await _check_minute(db, tenant.id, START + timedelta(minutes=minute), quota, sizes)
        async with db.connect() as conn:
            query = select(func.count()).where(capability_call_minutes.c.tenant_id == tenant.id)
            rows = await conn.scalar(query)
        assert rows == min(2, len(bursts)), "the minutes before the previous one were not dropped"
    finally:
        await db.dispose()


async def _check_minute(
    db: AsyncEngine, tenant_id: str, minute_at: datetime, quota: int, sizes: list[int]
) -> None:
    counted = 0
    for second, size in enumerate(sizes):
        at = minute_at + timedelta(seconds=second * 20)
        taken = await asyncio.gather(*(_take(db, tenant_id, at, quota) for _ in range(size)))
        assert sum(taken) == min(size, quota - counted), (quota, counted, size)
        counted += sum(taken)
        async with db.connect() as conn:
            assert await call_minutes.counted(conn, tenant_id, at) == counted <= quota


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(quota=st.integers(1, 8), bursts=minutes)
def test_concurrent_calls_never_count_past_the_quota(
    database_url: str, quota: int, bursts: list[list[int]]
) -> None:
    uvloop.run(_flood(database_url, quota, bursts))


#: Calls one after another: each some seconds after the last, its clock reading up to 90 s
#: behind (a reading taken before waiting for the database, or on a node whose clock lags).
late_calls = st.lists(st.tuples(st.integers(0, 50), st.integers(0, 90)), min_size=1, max_size=40)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(quota=st.integers(1, 5), calls=late_calls)
def test_a_late_clock_reading_counts_in_the_newest_minute(
    database_url: str, quota: int, calls: list[tuple[int, int]]
) -> None:
    """The model: a call happens now, in the newest minute any call counted in (or its own,
    if later), and is taken while that minute holds fewer than `quota`. A late reading can
    never start a minute already counted again from zero (before, one whose row a newer
    minute's caller had dropped did: two nodes let 13 calls through in two minutes of 6)."""
    uvloop.run(_late_calls(database_url, quota, calls))


async def _late_calls(database_url: str, quota: int, calls: list[tuple[int, int]]) -> None:
    db = create_engine(database_url)
    try:
        async with db.begin() as conn:
            tenant, _ = await create_tenant(conn, f"t-{uuid.uuid4().hex}")
        now, newest, counts = START, 0, Counter[int]()
        for after_s, behind_s in calls:
            now += timedelta(seconds=after_s)
            read = now - timedelta(seconds=behind_s)
            newest = max(newest, call_minutes.epoch_minute(read))
            expected = counts[newest] < quota
            counts[newest] += expected
            assert await _take(db, tenant.id, read, quota) == expected, (newest, counts)
    finally:
        await db.dispose()


async def test_late_callers_racing_the_minute_s_first_callers_never_pass_the_quota(
    db: AsyncEngine,
) -> None:
    """Callers of a full minute, their readings late, race the next minute's first callers
    (each its own connection and transaction, as on two nodes): every call lands in a minute
    with room or is refused, so no more than the quota pass in the new minute (before, a late
    caller could find its minute's row dropped by a new-minute caller and count it from 0)."""
    quota, racers = 4, 8
    async with db.begin() as conn:
        tenant, _ = await create_tenant(conn, "racer")
    full = START + timedelta(seconds=59)
    assert all(await asyncio.gather(*(_take(db, tenant.id, full, quota) for _ in range(quota))))
    turned = START + timedelta(minutes=1)
    takes = [_take(db, tenant.id, at, quota) for at in (full, turned) for _ in range(racers)]
    taken = await asyncio.gather(*takes)
    assert sum(taken) == quota, taken
    async with db.connect() as conn:
        assert await call_minutes.counted(conn, tenant.id, full) == quota
        assert await call_minutes.counted(conn, tenant.id, turned) == quota


async def test_tenants_count_apart(db: AsyncEngine) -> None:
    async with db.begin() as conn:
        first, _ = await create_tenant(conn, "first")
        second, _ = await create_tenant(conn, "second")
    assert [await _take(db, first.id, START, 1) for _ in range(2)] == [True, False]
    assert await _take(db, second.id, START, 1)


def test_a_minute_is_whole_minutes_from_the_epoch() -> None:
    assert call_minutes.epoch_minute(datetime(1970, 1, 1, 0, 1, 59, tzinfo=UTC)) == 1
    later = START + timedelta(seconds=59.999)
    assert call_minutes.epoch_minute(later) == call_minutes.epoch_minute(START)
    assert call_minutes.epoch_minute(START + timedelta(minutes=1)) == (
        call_minutes.epoch_minute(START) + 1
    )
