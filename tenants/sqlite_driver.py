"""SQLite for SQLAlchemy's async engine in one thread crossing per statement.

aiosqlite runs each connection on its own thread. SQLAlchemy's adapter crosses from the event
loop to that thread and back four times per statement (make a cursor, execute, fetch, close)
and once more for every commit and rollback, even when no transaction is open (each pooled
connection is rolled back when it is returned). A crossing costs CPU (a futex wake one way, a
self-pipe write and an epoll wake-up the other), and the engine's hot path made dozens per
action: most of its CPU per action at low load (figures in docs/performance.md).

Here a statement is one crossing: the connection's thread makes a cursor, executes, fetches
every row and closes it; the event loop then serves description, rowcount and rows from
memory. A commit or rollback with no transaction open is no crossing at all. The engine's bulk
statements, compiled once, skip SQLAlchemy's execution altogether (`execute_many`,
`fetch_all`).

A connection that writes inline (the API's) crosses for nothing once it holds SQLite's write
lock: from its transaction's first write to its commit, every statement runs on the event
loop's thread, so the lock is held for SQLite's own time rather than across the trips its
busy loop makes between other requests, while the engine's process waits (decision 143).
Only the first write crosses: it is the statement that may wait for the lock.

This leans on two private parts of aiosqlite (`Connection._execute`, which queues a function
for the connection's thread, and `Connection._conn`, the sqlite3 connection) and on SQLAlchemy's
aiosqlite adapter classes; pyproject.toml bounds both libraries to the range tested (the upper
bounds move only after every database test, which all run through here, passed on the new
release).
"""

from __future__ import annotations

import sqlite3
import time
from collections import deque
from collections.abc import Sequence
from typing import Any

import aiosqlite
from sqlalchemy.dialects.sqlite.aiosqlite import (
    AsyncAdapt_aiosqlite_connection,
    AsyncAdapt_aiosqlite_cursor,
    AsyncAdapt_aiosqlite_dbapi,
)
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.util.concurrency import await_

#: (description, rows, rowcount, lastrowid) of one executed statement.
_Executed = tuple[Any, list[Any], int, int | None]


#: How often an eager writer looks again for SQLite's write lock (`OneCrossingDBAPI`).
EAGER_POLL_S = 0.001
#: How the statements that take SQLite's write lock begin (as SQLAlchemy and this project
#: write them; a write it does not recognise only keeps crossing).
_WRITE_VERBS = ("INSERT", "UPDATE", "DELETE", "REPLACE")


def _execute(
    connection: sqlite3.Connection,
    operation: str,
    parameters: Any,
    many: bool,
    patience_s: float | None = None,
) -> _Executed:
    """On the connection's thread: run one statement to completion. With `patience_s`, a
    statement that finds the database busy (its write lock taken, its log being recovered) is
    tried again every millisecond for that long (the connection's own busy timeout is then 0).
    A snapshot too old to write from (SQLITE_BUSY_SNAPSHOT) is not waited for: it never
    clears, and SQLite's own wait does not wait for it either."""
    if patience_s is None:
        return _execute_once(connection, operation, parameters, many)
    deadline = time.monotonic() + patience_s
    while True:
        try:
            return _execute_once(connection, operation, parameters, many)
        except sqlite3.OperationalError as exc:
            if not _will_clear(exc) or time.monotonic() >= deadline:
                raise
            time.sleep(EAGER_POLL_S)


def _will_clear(error: sqlite3.OperationalError) -> bool:
    """Whether the database is busy in a way that waiting ends."""
    code = error.sqlite_errorcode
    return code & 0xFF == sqlite3.SQLITE_BUSY and code != sqlite3.SQLITE_BUSY_SNAPSHOT


def _execute_once(
    connection: sqlite3.Connection, operation: str, parameters: Any, many: bool
) -> _Executed:
    """Rows are fetched before rowcount is read: for a statement with RETURNING, sqlite3 counts
    rows as they are read."""
    cursor = connection.cursor()
    try:
        if many:
            cursor.executemany(operation, parameters)
        elif parameters is None:
            cursor.execute(operation)
        else:
            cursor.execute(operation, parameters)
        description = cursor.description
        rows = cursor.fetchall() if description else []
        return description, rows, cursor.rowcount, cursor.lastrowid
    finally:
        cursor.close()


class _OneCrossingCursor(AsyncAdapt_aiosqlite_cursor):
    """A cursor that exists only on the event loop's side: each statement is executed,
    fetched and closed in one call (`_OneCrossingConnection.run`)."""

    __slots__ = ("_description", "_lastrowid", "_rowcount")

    def __init__(self, adapt_connection: AsyncAdapt_aiosqlite_connection) -> None:
        self._description: Any = None
        self._rowcount = -1
        self._lastrowid: int | None = None
        super().__init__(adapt_connection)

    def _make_new_cursor(self, connection: Any) -> Any:
        return None

    def _aenter_cursor(self, cursor: Any) -> Any:
        return None

    @property
    def description(self) -> Any:
        return self._description

    @property
    def rowcount(self) -> int:
        return self._rowcount

    @property
    def lastrowid(self) -> int | None:  # type: ignore[override]
        return self._lastrowid

    async def _run(self, operation: str, parameters: Any, many: bool) -> None:
        adapt: _OneCrossingConnection = self._adapt_connection  # type: ignore[assignment]
        executed = await adapt.run(operation, parameters, many)
        self._description, rows, self._rowcount, self._lastrowid = executed
        self._rows = deque(rows)

    async def _execute_async(self, operation: Any, parameters: Any) -> None:
        await self._run(operation, parameters, many=False)

    async def _executemany_async(self, operation: Any, seq_of_parameters: Any) -> None:
        await self._run(operation, seq_of_parameters, many=True)

    async def _async_soft_close(self) -> None:
        """Nothing to close: the sqlite3 cursor was closed on the connection's thread."""

    def close(self) -> None:
        self._rows.clear()


class _OneCrossingConnection(AsyncAdapt_aiosqlite_connection):
    __slots__ = ("_writing", "inline_writes", "patience_s")

    _cursor_cls: type[AsyncAdapt_aiosqlite_cursor] = _OneCrossingCursor

    def __init__(
        self, dbapi: Any, connection: Any, patience_s: float | None, inline_writes: bool
    ) -> None:
        super().__init__(dbapi, connection)
        #: How long a statement waits for the write lock, looking every millisecond; None:
        #: SQLite's own busy handler waits (in sleeps that grow to 100 ms).
        self.patience_s = patience_s
        #: Whether statements run on the event loop's thread while the write lock is held.
        self.inline_writes = inline_writes
        self._writing = False

    async def run(self, operation: str, parameters: Any, many: bool) -> _Executed:
        """One statement to completion: on the loop's thread while this connection holds the
        write lock, else on the connection's thread (waiting for the lock as `patience_s`
        says), after which a write that succeeded is noted as holding it."""
        connection: aiosqlite.Connection = self._connection  # type: ignore[assignment]
        if self.holds_write_lock():
            return _execute_once(connection._conn, operation, parameters, many)
        executed = await connection._execute(
            _execute, connection._conn, operation, parameters, many, self.patience_s
        )
        if self.inline_writes and operation.lstrip()[:7].upper().startswith(_WRITE_VERBS):
            self._writing = True
        return executed

    def holds_write_lock(self) -> bool:
        """Whether a write of the open transaction holds SQLite's write lock (a transaction
        may be open without it: a SAVEPOINT opens one; and one ends when its outermost
        savepoint is released, so the flag is checked against SQLite's own)."""
        if self._writing and not self._in_transaction():
            self._writing = False
        return self._writing

    def _in_transaction(self) -> bool:
        """Read on the loop's thread while the connection's thread is idle (statements of one
        connection are awaited one after the other): a plain read of SQLite's autocommit flag."""
        connection: sqlite3.Connection | None = self._connection._connection
        return connection is not None and connection.in_transaction

    async def execute_many(self, operation: str, rows: Sequence[Sequence[Any]]) -> None:
        """One statement over many rows in one crossing, past SQLAlchemy's execution (its
        execution context, events and result cost more than the crossing): for a statement
        compiled once with its rows in the driver's form (`tenants.lean_statements`). A failure
        is raised as SQLAlchemy raises the driver's (an `IntegrityError`, an
        `OperationalError`)."""
        await self._lean(operation, rows, many=True)

    async def fetch_all(self, operation: str, parameters: Sequence[Any]) -> list[tuple[Any, ...]]:
        """One statement's rows, as the driver gives them, in one crossing past SQLAlchemy's
        execution (see `execute_many`)."""
        return (await self._lean(operation, parameters, many=False))[1]

    async def _lean(self, operation: str, parameters: Any, many: bool) -> _Executed:
        try:
            try:
                return await self.run(operation, parameters, many)
            except Exception as error:
                self._handle_exception(error)  # the driver's error, as a cursor raises it
        except sqlite3.Error as exc:
            raise DBAPIError.instance(operation, parameters, exc, sqlite3.Error) from exc

    def rollback(self) -> None:
        if self.holds_write_lock():
            self._end_inline(self._connection._conn.rollback)
        elif self._in_transaction():
            super().rollback()

    def commit(self) -> None:
        if self.holds_write_lock():
            self._end_inline(self._connection._conn.commit)
        elif self._in_transaction():
            super().commit()

    def _end_inline(self, end: Any) -> None:
        """Commit or roll back on the loop's thread: with the write lock held, neither waits
        (a commit's checkpoint is SQLite's passive one, which takes no lock it must wait for)."""
        self._writing = False
        try:
            end()
        except Exception as error:
            self._handle_exception(error)


class OneCrossingDBAPI(AsyncAdapt_aiosqlite_dbapi):
    """The DB-API module SQLAlchemy's aiosqlite dialect is given (`create_async_engine(...,
    module=OneCrossingDBAPI())`)."""

    def __init__(
        self, eager_patience_s: float | None = None, *, inline_writes: bool = False
    ) -> None:
        """With `eager_patience_s`, its connections wait for the write lock themselves, looking
        every millisecond for that long, instead of in SQLite's growing sleeps (their busy
        timeout must be 0): an eager writer takes the lock within a millisecond of its release,
        ahead of writers sleeping in SQLite's wait. The engine's process writes this way, so an
        API write does not make it late by more than its own length (decision 142). With
        `inline_writes`, that length is SQLite's own: statements after a transaction's first
        write run on the loop's thread (decision 143)."""
        super().__init__(aiosqlite, sqlite3)
        self._eager_patience_s = eager_patience_s
        self._inline_writes = inline_writes

    def connect(self, *arg: Any, **kw: Any) -> _OneCrossingConnection:
        # aiosqlite's connection is the DB-API connection SQLAlchemy's adapter wraps; one that
        # writes inline is also used from the loop's thread (never at once: see `run`).
        if self._inline_writes:
            kw["check_same_thread"] = False
        connection: Any = aiosqlite.connect(*arg, **kw)
        connection._thread.daemon = True  # as SQLAlchemy's own adapter does
        return _OneCrossingConnection(
            self, await_(connection), self._eager_patience_s, self._inline_writes
        )


def one_crossing(conn: AsyncConnection) -> _OneCrossingConnection | None:
    """The driver connection under `conn` when it is this module's (SQLite), else None."""
    found = conn.sync_connection.connection.dbapi_connection if conn.sync_connection else None
    return found if isinstance(found, _OneCrossingConnection) else None
