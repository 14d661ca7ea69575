"""Instants in SQLite: `UtcDateTime`'s direct path writes exactly the text SQLAlchemy's own
DATETIME writes (existing databases and string comparison in SQL depend on it), reads every
instant back aware and equal, and refuses naive values."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import Column, Integer, MetaData, String, Table, cast, insert, select
from sqlalchemy.dialects import sqlite
from sqlalchemy.dialects.sqlite import DATETIME
from sqlalchemy.exc import StatementError
from sqlalchemy.ext.asyncio import AsyncEngine
from support.sqlite_tables import sqlite_with

from tenants.types import UtcDateTime

metadata = MetaData()
stamps = Table(
    "stamps",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("at", UtcDateTime()),
)
instants = st.datetimes(
    min_value=datetime(1, 1, 2),
    max_value=datetime(9999, 12, 30),
    timezones=st.sampled_from([UTC, timezone(timedelta(hours=5, minutes=30)), timezone.min]),
)


@pytest.fixture
async def engine(tmp_path: Path) -> AsyncIterator[AsyncEngine]:
    async with sqlite_with(metadata, tmp_path / "stamps.db") as engine:
        yield engine


@given(instants)
@settings(max_examples=300)
def test_stored_text_is_sqlalchemys_datetime_text_and_reads_back_equal(at: datetime) -> None:
    dialect = sqlite.dialect()
    ours = UtcDateTime().bind_processor(dialect)
    theirs = DATETIME().bind_processor(dialect)
    assert ours is not None and theirs is not None
    text = ours(at)
    assert text == theirs(at.astimezone(UTC).replace(tzinfo=None))
    read = UtcDateTime().result_processor(dialect, None)
    assert read is not None
    back = read(text)
    assert back == at and back.tzinfo is UTC


async def test_a_real_sqlite_file_keeps_text_order_equal_to_time_order(
    engine: AsyncEngine,
) -> None:
    base = datetime(2026, 3, 29, 0, 30, tzinfo=UTC)
    berlin_summer = timezone(timedelta(hours=2))
    written = [base + timedelta(microseconds=n * 999_983) for n in range(50)]
    async with engine.begin() as conn:
        await conn.execute(
            insert(stamps), [{"at": at.astimezone(berlin_summer)} for at in reversed(written)]
        )
    async with engine.connect() as conn:
        read = (await conn.execute(select(stamps.c.at).order_by(stamps.c.at))).scalars().all()
        texts = (
            await conn.execute(select(cast(stamps.c.at, String)).order_by(stamps.c.id))
        ).scalars()
        later = select(stamps.c.id).where(stamps.c.at > written[24])
        assert len((await conn.execute(later)).all()) == 25
    assert read == written and all(at.tzinfo is UTC for at in read)
    assert list(texts) == [at.strftime("%Y-%m-%d %H:%M:%S.%f") for at in reversed(written)]


async def test_a_naive_instant_is_refused_and_nothing_is_written(engine: AsyncEngine) -> None:
    with pytest.raises(StatementError, match="naive datetime"):
        async with engine.begin() as conn:
            await conn.execute(insert(stamps), [{"at": datetime(2026, 1, 1, 9, 0)}])
    async with engine.connect() as conn:
        assert (await conn.execute(select(stamps))).all() == []
