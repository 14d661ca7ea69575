"""SQLite through one thread crossing per statement: same results as a DB-API cursor (rows,
rowcount with RETURNING, transactions), and the crossings it promises."""

from __future__ import annotations

import collections
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import aiosqlite.core
import pytest
from sqlalchemy import insert, select, update
from sqlalchemy.ext.asyncio import AsyncEngine
from support.sqlite_tables import items, items_metadata, sqlite_with


@pytest.fixture
async def engine(tmp_path: Path) -> AsyncIterator[AsyncEngine]:
    async with sqlite_with(items_metadata, tmp_path / "driver.db") as engine:
        yield engine


@pytest.fixture
def crossings(monkeypatch: pytest.MonkeyPatch) -> Iterator[collections.Counter[str]]:
    """Counts what is queued for each connection's thread, by function name."""
    counted: collections.Counter[str] = collections.Counter()
    queue = aiosqlite.core.Connection._execute

    async def counting(self, fn, *args, **kwargs):  # type: ignore[no-untyped-def]
        counted[getattr(fn, "__name__", repr(fn))] += 1
        return await queue(self, fn, *args, **kwargs)

    monkeypatch.setattr(aiosqlite.core.Connection, "_execute", counting)
    yield counted


async def test_rows_rowcount_and_returning_match_what_was_written(engine: AsyncEngine) -> None:
    async with engine.begin() as conn:
        await conn.execute(insert(items), [{"name": n} for n in ("a", "b", "c")])
        renamed = await conn.execute(
            update(items).where(items.c.id >= 2).values(name="z").returning(items.c.id)
        )
        assert sorted(renamed.scalars()) == [2, 3]
        plain = await conn.execute(update(items).where(items.c.name == "z").values(name="y"))
        assert plain.rowcount == 2
        inserted = await conn.execute(insert(items).values(name="d"))
        assert inserted.inserted_primary_key == (4,)
    async with engine.connect() as conn:
        rows = (await conn.execute(select(items).order_by(items.c.id))).all()
    assert [tuple(r) for r in rows] == [(1, "a"), (2, "y"), (3, "y"), (4, "d")]


async def test_a_failed_transaction_leaves_nothing_behind(engine: AsyncEngine) -> None:
    with pytest.raises(RuntimeError):
        async with engine.begin() as conn:
            await conn.execute(insert(items).values(name="half"))
            raise RuntimeError("abandon")
    async with engine.connect() as conn:
        assert (await conn.execute(select(items))).all() == []


async def test_each_statement_is_one_crossing_and_idle_ends_are_none(
    engine: AsyncEngine, crossings: collections.Counter[str]
) -> None:
    async with engine.connect() as conn:  # warm the pool: connecting crosses too
        await conn.execute(select(items))
    crossings.clear()
    async with engine.connect() as conn:
        await conn.execute(select(items))
        await conn.execute(select(items.c.id))
    assert crossings == {"_execute": 2}, "two reads, and no rollback when none is open"
    crossings.clear()
    async with engine.begin() as conn:
        await conn.execute(insert(items).values(name="x"))
    assert crossings == {"_execute": 1, "commit": 1}
