"""A write meeting SQLite's write lock held by another connection: what the engine's statements
that go past SQLAlchemy's execution must still report as a busy database."""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.exc import OperationalError
from sqlalchemy.ext.asyncio import AsyncConnection

from support.db_engines import checked_engine
from tenants.faults import DatabaseBusy, as_unavailable


async def assert_busy_while_locked(
    sqlite_template: Path,
    tmp_path: Path,
    prepare: Callable[[AsyncConnection], Awaitable[Any]],
    write: Callable[[AsyncConnection, Any], Awaitable[object]],
) -> None:
    """On a fresh database, `prepare` commits what `write` needs (it returns it); `write` then
    runs while another connection holds the write lock, and must fail as a busy database."""
    path = tmp_path / "cadenza.db"
    shutil.copy(sqlite_template, path)
    async with checked_engine(f"sqlite+aiosqlite:///{path}") as db:
        async with db.begin() as conn:
            prepared = await prepare(conn)
        holder = sqlite3.connect(path, isolation_level=None)
        try:
            holder.execute("BEGIN IMMEDIATE")
            with pytest.raises(OperationalError) as raised:
                async with db.begin() as conn:
                    await conn.exec_driver_sql("PRAGMA busy_timeout = 50")
                    await write(conn, prepared)
            assert isinstance(as_unavailable(raised.value), DatabaseBusy)
        finally:
            holder.close()
