"""Opening a database with every driver failure translated into one clear error."""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from tenants.db import create_engine, describe_url, is_sqlite, normalise_url
from tenants.errors import DatabaseUnavailable


def _reason(exc: BaseException) -> str:
    """The innermost driver message, on one line."""
    while exc.__cause__ is not None:
        exc = exc.__cause__
    message = " ".join(str(exc).split()) or type(exc).__name__
    return message[:300]


async def open_database(url: str, *, eager_writer: bool = False) -> AsyncEngine:
    """An engine whose database answered a first query; DatabaseUnavailable otherwise."""
    engine = create_engine(url, eager_writer=eager_writer)
    try:
        async with engine.connect() as conn:
            await conn.execute(text("SELECT 1"))
    except Exception as exc:  # any driver failure here means the same thing to the user
        await engine.dispose()
        if is_sqlite(normalise_url(url)):
            fix = "check that the file and its directory are writable, or choose another --db"
        else:
            fix = "check the URL and that the database server is running"
        raise DatabaseUnavailable(
            f"cannot open {describe_url(url)}: {_reason(exc)}; {fix}"
        ) from exc
    return engine
