"""Which driver errors mean "the database is not available now" rather than a bug.

The API answers these with 503 and Retry-After (never 500), and readiness reports them: the
server cannot be reached or is shutting down, a connection broke, the pool had none free in
time, SQLite's write lock stayed taken past the busy timeout, or its disk is full or failing
(SQLite reports a file grown past its size limit as an I/O error). Each gets a
message that says what happened and that nothing was changed (the transaction rolled back).
"""

from __future__ import annotations

import asyncpg
from asyncpg import exceptions as pg_exc
from sqlalchemy import exc as sa_exc

from tenants.errors import DatabaseUnavailable

#: Every class an error that `as_unavailable` recognises belongs to (for exception handlers).
DRIVER_ERRORS: tuple[type[BaseException], ...] = (
    sa_exc.SQLAlchemyError,
    OSError,
    asyncpg.PostgresError,
    asyncpg.InterfaceError,
)
#: Errors that mean the server is away: the network's, and asyncpg's (shutting down, starting
#: up, connection lost), raised as they are or wrapped by SQLAlchemy.
_AWAY = (
    ConnectionError,
    TimeoutError,
    pg_exc.PostgresConnectionError,
    pg_exc.OperatorInterventionError,
)

#: Seconds a client is told to wait before retrying; the disk-full case waits longer.
RETRY_AFTER_S = 5
DISK_FULL_RETRY_AFTER_S = 60


class DatabaseDiskError(DatabaseUnavailable):
    """The database's disk is full or failing: nothing was saved; free space on that disk."""


class DatabaseBusy(DatabaseUnavailable):
    """The database stayed locked by another writer past the busy timeout: nothing was saved."""


def as_unavailable(exc: BaseException) -> DatabaseUnavailable | None:
    """`exc` as a DatabaseUnavailable if it says the database is not available now, else None."""
    if isinstance(exc, DatabaseUnavailable):
        return exc
    text = str(getattr(exc, "orig", None) or exc).lower()
    if any(sign in text for sign in ("disk is full", "no space left", "disk i/o error")):
        return DatabaseDiskError()
    if "database is locked" in text or "database table is locked" in text:
        return DatabaseBusy()
    if isinstance(exc, sa_exc.TimeoutError):
        return DatabaseUnavailable("no database connection came free in time: nothing was saved")
    away = next((e for e in _chain(exc) if isinstance(e, _AWAY)), None)
    if away is not None:
        return DatabaseUnavailable(f"the database cannot be reached: {_first_line(away)}")
    if isinstance(exc, sa_exc.DBAPIError) and (
        exc.connection_invalidated
        or isinstance(exc, sa_exc.OperationalError | sa_exc.InterfaceError)
    ):
        return DatabaseUnavailable(f"the database failed: {_first_line(exc)}; nothing was saved")
    return None


def retry_after_s(exc: DatabaseUnavailable) -> int:
    return DISK_FULL_RETRY_AFTER_S if isinstance(exc, DatabaseDiskError) else RETRY_AFTER_S


def _first_line(exc: BaseException) -> str:
    orig = getattr(exc, "orig", None) or exc
    text = str(orig).splitlines()[0] if str(orig) else ""
    return f"{type(orig).__name__}: {text}"[:200]


def _chain(exc: BaseException) -> list[BaseException]:
    """`exc` and what it wraps (SQLAlchemy's `orig`, then the causes), outermost first."""
    found: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in found and len(found) < 10:
        found.append(current)
        current = getattr(current, "orig", None) or current.__cause__ or current.__context__
    return found
