"""An eager writer (the engine's process on SQLite) waits for the write lock itself, looking
every millisecond, instead of in SQLite's growing sleeps: it writes once the lock is given
back, fails as a busy database past its patience, and leaves SQLite's own wait at zero."""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
import threading
import time
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.exc import OperationalError

from tenants import db as db_module
from tenants.db import create_engine
from tenants.faults import DatabaseBusy, as_unavailable
from tenants.sqlite_driver import _execute

WRITE = text("CREATE TABLE IF NOT EXISTS written (n INTEGER)")


def _database(sqlite_template: Path, tmp_path: Path) -> Path:
    path = tmp_path / "cadenza.db"
    shutil.copy(sqlite_template, path)
    return path


async def test_an_eager_write_waits_for_a_held_lock_and_writes_once_it_is_given_back(
    sqlite_template: Path, tmp_path: Path
) -> None:
    path = _database(sqlite_template, tmp_path)
    db = create_engine(f"sqlite+aiosqlite:///{path}", eager_writer=True)
    holder = sqlite3.connect(path, isolation_level=None)
    try:
        holder.execute("BEGIN IMMEDIATE")

        async def write() -> None:
            async with db.begin() as conn:
                await conn.execute(WRITE)
                await conn.execute(text("INSERT INTO written VALUES (1)"))

        writing = asyncio.create_task(write())
        await asyncio.sleep(0.3)  # the lock is held this long: the write must still wait
        assert not writing.done()
        holder.execute("COMMIT")
        await asyncio.wait_for(writing, timeout=3)
        assert holder.execute("SELECT n FROM written").fetchall() == [(1,)]
    finally:
        holder.close()
        await db.dispose()


async def test_an_eager_write_past_its_patience_is_a_busy_database(
    sqlite_template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(db_module, "SQLITE_BUSY_TIMEOUT_MS", 200)
    path = _database(sqlite_template, tmp_path)
    db = create_engine(f"sqlite+aiosqlite:///{path}", eager_writer=True)
    holder = sqlite3.connect(path, isolation_level=None)
    try:
        holder.execute("BEGIN IMMEDIATE")
        started = time.monotonic()
        with pytest.raises(OperationalError) as raised:
            async with db.begin() as conn:
                await conn.execute(WRITE)
        waited_s = time.monotonic() - started
        assert isinstance(as_unavailable(raised.value), DatabaseBusy)
        assert 0.2 <= waited_s < 3, waited_s
    finally:
        holder.close()
        await db.dispose()


@pytest.mark.parametrize("eager", [True, False])
async def test_only_an_eager_writer_turns_sqlites_own_wait_off(
    sqlite_template: Path, tmp_path: Path, eager: bool
) -> None:
    path = _database(sqlite_template, tmp_path)
    db = create_engine(f"sqlite+aiosqlite:///{path}", eager_writer=eager)
    try:
        async with db.connect() as conn:
            busy_timeout = (await conn.execute(text("PRAGMA busy_timeout"))).scalar()
    finally:
        await db.dispose()
    assert busy_timeout == (0 if eager else db_module.SQLITE_BUSY_TIMEOUT_MS)


def test_a_snapshot_too_old_to_write_from_is_not_waited_for(tmp_path: Path) -> None:
    """A transaction that read before another connection committed can never write: waiting
    would only make its failure late (SQLite's own wait does not wait for it either)."""
    path = tmp_path / "snapshot.db"
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("PRAGMA journal_mode=WAL")
    other.execute("CREATE TABLE t (x INTEGER)")
    reader = sqlite3.connect(path, isolation_level=None, timeout=0)
    try:
        reader.execute("BEGIN")
        reader.execute("SELECT * FROM t").fetchall()
        other.execute("INSERT INTO t VALUES (1)")
        started = time.monotonic()
        with pytest.raises(sqlite3.OperationalError) as raised:
            _execute(reader, "INSERT INTO t VALUES (2)", None, many=False, patience_s=5.0)
        assert raised.value.sqlite_errorcode == sqlite3.SQLITE_BUSY_SNAPSHOT
        assert time.monotonic() - started < 2.5
    finally:
        reader.close()
        other.close()


def test_an_eager_writer_goes_before_a_writer_asleep_in_sqlites_wait(tmp_path: Path) -> None:
    """The engine's promise under API load: when the lock is given back, the eager writer
    (the engine) takes it ahead of a writer that began waiting first but sleeps in SQLite's
    growing wait (an API process). Each round, a third connection holds the lock for 0.4 s,
    long enough for SQLite's sleeps to reach 50-100 ms; the first row committed says who won.
    A sleeping writer can wake within the eager one's millisecond now and then, so four
    rounds of five must go to the eager writer (with SQLite's wait on both sides, the first
    waiter won every round)."""
    path = tmp_path / "order.db"
    setup = sqlite3.connect(path, isolation_level=None)
    setup.execute("PRAGMA journal_mode=WAL")
    setup.execute("CREATE TABLE written (who TEXT)")
    setup.close()

    def one_round() -> str:
        holder = sqlite3.connect(path, isolation_level=None)
        sleeper = sqlite3.connect(path, isolation_level=None, timeout=5, check_same_thread=False)
        eager = sqlite3.connect(path, isolation_level=None, timeout=0, check_same_thread=False)
        try:
            holder.execute("BEGIN IMMEDIATE")
            insert = "INSERT INTO written VALUES (?)"
            writers = [
                threading.Thread(target=sleeper.execute, args=(insert, ("sleeper",))),
                threading.Thread(target=_execute, args=(eager, insert, ("eager",), False, 5.0)),
            ]
            for writer in writers:
                writer.start()
                time.sleep(0.05)  # the sleeper starts waiting first
            time.sleep(0.4)
            holder.execute("DELETE FROM written")
            holder.execute("COMMIT")
            for writer in writers:
                writer.join(timeout=10)
            return holder.execute("SELECT who FROM written ORDER BY rowid").fetchall()[0][0]
        finally:
            for connection in (holder, sleeper, eager):
                connection.close()

    firsts = [one_round() for _ in range(5)]
    assert firsts.count("eager") >= 4, firsts
