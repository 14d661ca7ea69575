"""An eager writer (the engine's process on SQLite) waits for the write lock itself, looking
every millisecond, instead of in SQLite's growing sleeps: it writes once the lock is given
back, fails as a busy database past its patience, and leaves SQLite's own wait at zero."""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
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
