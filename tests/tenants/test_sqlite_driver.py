"""SQLite through one thread crossing per statement: same results as a DB-API cursor (rows,
rowcount with RETURNING, transactions), the crossings it promises, and an API connection that
runs a transaction's statements on the loop's thread only while it really holds the write
lock."""

from __future__ import annotations

import asyncio
import collections
import sqlite3
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import aiosqlite.core
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from sqlalchemy import delete, insert, select, text, update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine
from support.sqlite_tables import items, items_metadata, sqlite_with

from tenants.sqlite_driver import one_crossing


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
        await conn.execute(select(items))
        await conn.execute(insert(items).values(name="x"))
    assert crossings == {"_execute": 2}, "the commit of a write runs on the loop's thread"


async def test_from_a_transactions_first_write_to_its_commit_nothing_crosses_or_yields(
    engine: AsyncEngine, crossings: collections.Counter[str]
) -> None:
    """The write lock is held for SQLite's own time: once a transaction has written, its
    statements and its commit run on the loop's thread, and no other task runs in between."""
    async with engine.connect() as conn:
        await conn.execute(select(items))
    crossings.clear()
    others_ran: list[str] = []

    async def another_task() -> None:
        others_ran.append("other")

    async with engine.connect() as conn:
        await conn.execute(insert(items), [{"name": "a"}, {"name": "b"}])
        other = asyncio.create_task(another_task())
        renamed = await conn.execute(
            update(items).where(items.c.name == "b").values(name="c").returning(items.c.id)
        )
        assert renamed.scalars().all() == [2]
        names = (await conn.execute(select(items.c.name).order_by(items.c.id))).scalars().all()
        assert names == ["a", "c"]
        await conn.execute(insert(items).values(name="d"))
        await conn.commit()
        assert others_ran == [], "no other task ran while the lock was held"
        assert crossings == {"_execute": 1}, "only the first write crosses"
    await other
    assert others_ran == ["other"]
    async with engine.connect() as conn:
        names = (await conn.execute(select(items.c.name).order_by(items.c.id))).scalars().all()
    assert names == ["a", "c", "d"]


async def test_an_eager_writer_keeps_crossing_after_its_first_write(
    tmp_path: Path, crossings: collections.Counter[str]
) -> None:
    async with sqlite_with(items_metadata, tmp_path / "eager.db", eager_writer=True) as engine:
        async with engine.connect() as conn:
            await conn.execute(select(items))
        crossings.clear()
        async with engine.begin() as conn:
            await conn.execute(insert(items).values(name="x"))
            await conn.execute(select(items))
        assert crossings == {"_execute": 2, "commit": 1}


async def test_a_transaction_that_has_not_written_waits_for_the_lock_off_the_loop(
    engine: AsyncEngine, tmp_path: Path
) -> None:
    """A SAVEPOINT opens a transaction without the write lock: a write in it must still wait
    on the connection's thread, or the whole process would stop for SQLite's busy wait."""
    holder = sqlite3.connect(tmp_path / "driver.db", isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:

        async def write() -> None:
            async with engine.connect() as conn:
                await conn.execute(text("SAVEPOINT opened"))
                await conn.execute(insert(items).values(name="late"))
                await conn.execute(text("RELEASE opened"))

        writing = asyncio.create_task(write())
        ticks = 0
        while ticks < 20:  # the loop keeps turning while the write waits
            await asyncio.sleep(0.005)
            ticks += 1
        assert not writing.done()
    finally:
        holder.execute("COMMIT")
        holder.close()
    await asyncio.wait_for(writing, timeout=5)
    async with engine.connect() as conn:
        assert (await conn.execute(select(items.c.name))).scalars().all() == ["late"]


async def test_a_released_outermost_savepoint_gives_the_lock_back_so_writes_cross_again(
    engine: AsyncEngine, crossings: collections.Counter[str]
) -> None:
    async with engine.connect() as conn:
        await conn.execute(text("SAVEPOINT first"))
        await conn.execute(insert(items).values(name="a"))
        await conn.execute(text("RELEASE first"))  # this commits: the lock is given back
        crossings.clear()
        await conn.execute(insert(items).values(name="b"))
        assert crossings == {"_execute": 1}, "a write after the release waits for the lock again"
        await conn.commit()
    async with engine.connect() as conn:
        assert (await conn.execute(select(items.c.name))).scalars().all() == ["a", "b"]


async def test_a_write_cancelled_while_it_waits_for_the_lock_is_never_committed(
    engine: AsyncEngine, tmp_path: Path, crossings: collections.Counter[str]
) -> None:
    """A request cancelled while its first write waits on the connection's thread: the thread
    finishes the statement later, and nothing of it is committed, nor run on the loop's thread
    beside it (the write never counted as holding the lock)."""
    holder = sqlite3.connect(tmp_path / "driver.db", isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:

        async def write() -> None:
            async with engine.begin() as conn:
                await conn.execute(insert(items).values(name="cancelled"))

        writing = asyncio.create_task(write())
        while crossings["_execute"] == 0:
            await asyncio.sleep(0.001)
        writing.cancel()
        await asyncio.sleep(0)  # the cancellation is delivered; the statement still waits
    finally:
        holder.execute("COMMIT")  # now it can finish, on its thread
        holder.close()
    with pytest.raises(asyncio.CancelledError):
        await writing
    for name in ("after", "and after"):
        async with engine.begin() as conn:
            await conn.execute(insert(items).values(name=name))
    async with engine.connect() as conn:
        names = (await conn.execute(select(items.c.name).order_by(items.c.id))).scalars().all()
    assert names == ["after", "and after"]


#: What a transaction of the API may do, in any order: writes that match rows or none, reads,
#: savepoints opened, released and rolled back to, commits and rollbacks.
STEPS = st.lists(
    st.sampled_from(
        ["insert", "update", "update none", "delete", "select", "savepoint", "release",
         "rollback to", "commit", "rollback"]
    ),
    min_size=1,
    max_size=14,
)  # fmt: skip


async def _step(conn: AsyncConnection, step: str, savepoints: list[str]) -> Any:
    """Do `step` on `conn`; what it read, if anything. `savepoints` are those open."""
    if step == "insert":
        await conn.execute(insert(items).values(name=f"n{len(savepoints)}"))
    elif step == "update":
        await conn.execute(update(items).values(name=items.c.name + "+"))
    elif step == "update none":
        await conn.execute(update(items).where(items.c.id < 0).values(name="never"))
    elif step == "delete":
        await conn.execute(delete(items).where(items.c.id == select(items.c.id).scalar_subquery()))
    elif step == "select":
        return (await conn.execute(select(items.c.name).order_by(items.c.id))).all()
    elif step == "savepoint":
        savepoints.append(f"s{len(savepoints)}")
        await conn.execute(text(f"SAVEPOINT {savepoints[-1]}"))
    elif step in ("release", "rollback to") and savepoints:
        verb = "RELEASE" if step == "release" else "ROLLBACK TO"
        await conn.execute(text(f"{verb} {savepoints.pop()}"))
    elif step in ("commit", "rollback"):
        await (conn.commit() if step == "commit" else conn.rollback())
        savepoints.clear()
    return None


def _lock_is_free(path: Path) -> bool:
    neighbour = sqlite3.connect(path, isolation_level=None, timeout=0)
    try:
        neighbour.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError:
        return False
    finally:
        if neighbour.in_transaction:
            neighbour.execute("ROLLBACK")
        neighbour.close()
    return True


async def _run_steps(path: Path, steps: list[str], eager: bool) -> tuple[list[Any], list[Any]]:
    """Run `steps` on a new database; what each read, and what was left committed. After
    every step of an API (inline) connection, a neighbour connection checks that whenever it
    says it holds the write lock (so runs statements on the loop's thread), it does."""
    async with sqlite_with(items_metadata, path, eager_writer=eager) as engine:
        read = []
        async with engine.connect() as conn:
            savepoints: list[str] = []
            for step in steps:
                read.append(await _step(conn, step, savepoints))
                raw = one_crossing(conn)
                assert raw is not None
                if raw.holds_write_lock():
                    assert not _lock_is_free(path), f"claims the lock it lacks after {step}"
            await conn.rollback()
        async with engine.connect() as conn:
            left = (await conn.execute(select(items.c.name).order_by(items.c.id))).all()
    return read, left


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(STEPS)
@example(["savepoint", "insert", "release", "insert", "rollback"])  # RELEASE commits
async def test_inline_statements_read_and_leave_what_crossing_ones_do(steps: list[str]) -> None:
    with tempfile.TemporaryDirectory() as directory:
        inline = await _run_steps(Path(directory) / "inline.db", steps, eager=False)
        crossing = await _run_steps(Path(directory) / "crossing.db", steps, eager=True)
    assert inline == crossing
