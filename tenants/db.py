"""The only place a database URL becomes an engine.

Cadenza speaks to two databases: an embedded SQLite file (the default, one node) and
PostgreSQL (many nodes). Every URL is normalised here to its async driver, and SQLite gets the
pragmas that make it a good single-node queue: WAL (readers never block the writer),
synchronous=NORMAL (durable across process crashes, which is what we promise), a busy timeout
(writers wait instead of failing) and foreign keys.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from tenants.errors import DatabaseUnavailable, DatabaseUrlError
from tenants.sqlite_driver import OneCrossingDBAPI

DEFAULT_URL = "sqlite+aiosqlite:///./cadenza.db"
SQLITE_BUSY_TIMEOUT_MS = 5000
#: How long opening a PostgreSQL connection may take: an unreachable server (a dropped route,
#: not a refused connection) then fails a request with 503 in seconds instead of asyncpg's 60.
PG_CONNECT_TIMEOUT_S = 10

_DRIVERS = {
    "sqlite": "sqlite+aiosqlite",
    "sqlite+aiosqlite": "sqlite+aiosqlite",
    "postgres": "postgresql+asyncpg",
    "postgresql": "postgresql+asyncpg",
    "postgresql+asyncpg": "postgresql+asyncpg",
}


def normalise_url(url: str) -> URL:
    """Parse `url` and point it at the async driver Cadenza uses; reject anything else."""
    try:
        parsed = make_url(url)
    except ArgumentError as exc:
        raise DatabaseUrlError(
            f"cannot parse database URL {url!r}: use sqlite+aiosqlite:///PATH "
            "or postgresql+asyncpg://USER:PASSWORD@HOST:PORT/DB"
        ) from exc
    driver = _DRIVERS.get(parsed.drivername)
    if driver is None:
        raise DatabaseUrlError(
            f"unsupported database URL scheme {parsed.drivername!r}: use sqlite+aiosqlite:///PATH "
            "or postgresql+asyncpg://USER:PASSWORD@HOST:PORT/DB"
        )
    parsed = parsed.set(drivername=driver)
    if is_sqlite(parsed) and not parsed.database:
        raise DatabaseUrlError(
            "an in-memory SQLite database would lose every schedule on exit: "
            "give a file, e.g. sqlite+aiosqlite:///./cadenza.db"
        )
    return parsed


def is_sqlite(url: URL) -> bool:
    return url.get_backend_name() == "sqlite"


def sqlite_path(url: URL) -> Path:
    assert url.database is not None
    return Path(url.database)


def check_sqlite_writable(url: URL) -> None:
    """Fail before SQLite creates half a database in a place it cannot finish writing."""
    path = sqlite_path(url).expanduser()
    directory = path.parent if str(path.parent) else Path(".")
    if not directory.is_dir():
        raise DatabaseUnavailable(
            f"cannot create SQLite database {path}: directory {directory} does not exist; "
            "create it or choose another path with --db"
        )
    if path.exists() and not os.access(path, os.R_OK | os.W_OK):
        raise DatabaseUnavailable(
            f"SQLite database {path} is read-only: "
            "make it writable or choose another path with --db"
        )
    if not os.access(directory, os.W_OK | os.X_OK):
        raise DatabaseUnavailable(
            f"cannot write SQLite database {path}: directory {directory} is read-only "
            "(SQLite needs it for its journal); choose a writable path with --db"
        )


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    """The busy timeout is set by the driver's `timeout` (`create_engine`)."""
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def create_engine(url: str, *, pool_size: int = 10, eager_writer: bool = False) -> AsyncEngine:
    """An async engine for `url`, with Cadenza's SQLite pragmas or PostgreSQL pool settings.
    An `eager_writer` (the engine's process) waits for SQLite's write lock by looking every
    millisecond rather than in SQLite's growing sleeps; any other runs a transaction's
    statements after its first write on the loop's thread, so it holds the lock for SQLite's
    own time (`tenants.sqlite_driver`)."""
    parsed = normalise_url(url)
    if is_sqlite(parsed):
        check_sqlite_writable(parsed)
        patience_s = SQLITE_BUSY_TIMEOUT_MS / 1000
        if eager_writer:  # it waits itself: SQLite's own wait (the driver's `timeout`) is off
            dbapi, timeout_s = OneCrossingDBAPI(patience_s), 0.0
        else:
            dbapi, timeout_s = OneCrossingDBAPI(inline_writes=True), patience_s
        engine = create_async_engine(parsed, connect_args={"timeout": timeout_s}, module=dbapi)
        event.listen(engine.sync_engine, "connect", _sqlite_pragmas)
        return engine
    return create_async_engine(
        parsed,
        pool_size=pool_size,
        max_overflow=pool_size,
        pool_pre_ping=True,
        connect_args={"timeout": PG_CONNECT_TIMEOUT_S},
    )


def describe_url(url: str) -> str:
    """The URL without its password, for messages and logs."""
    return normalise_url(url).render_as_string(hide_password=True)
