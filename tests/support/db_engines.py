"""The engine a test reaches its database through: every test package's `db` fixture, and the
engine tests' own (which runs on their module's event loop), open it the same way."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from sqlalchemy.ext.asyncio import AsyncEngine

from tenants.db import create_engine


@asynccontextmanager
async def checked_engine(url: str) -> AsyncIterator[AsyncEngine]:
    """An engine on `url`, disposed at the end; it fails the test if it leaks a connection."""
    engine = create_engine(url)
    try:
        yield engine
        assert engine.pool.checkedout() == 0, "a connection was not returned to the pool"  # type: ignore[attr-defined]
    finally:
        await engine.dispose()
