"""A SQLite file holding just the tables a test declares, opened the way Cadenza opens one."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

from sqlalchemy import Column, Integer, MetaData, String, Table
from sqlalchemy.ext.asyncio import AsyncEngine

from tenants.db import create_engine

#: A table of named items, for tests of the SQLite driver itself.
items_metadata = MetaData()
items = Table(
    "items",
    items_metadata,
    Column("id", Integer, primary_key=True),
    Column("name", String, nullable=False),
)


@contextlib.asynccontextmanager
async def sqlite_with(
    metadata: MetaData, path: Path, *, eager_writer: bool = False
) -> AsyncIterator[AsyncEngine]:
    engine = create_engine(f"sqlite:///{path}", eager_writer=eager_writer)
    async with engine.begin() as conn:
        await conn.run_sync(metadata.create_all)
    yield engine
    await engine.dispose()
