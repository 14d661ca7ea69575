"""SQLite for SQLAlchemy's async engine in one thread crossing per statement.

aiosqlite runs each connection on its own thread. SQLAlchemy's adapter crosses from the event
loop to that thread and back four times per statement (make a cursor, execute, fetch, close)
and once more for every commit and rollback, even when no transaction is open (each pooled
connection is rolled back when it is returned). A crossing costs CPU (a futex wake one way, a
self-pipe write and an epoll wake-up the other), and the engine's hot path made dozens per
action: most of its CPU per action at low load (figures in docs/performance.md).

Here a statement is one crossing: the connection's thread makes a cursor, executes, fetches
every row and closes it; the event loop then serves description, rowcount and rows from
memory. A commit or rollback with no transaction open is no crossing at all.

This leans on two private parts of aiosqlite (`Connection._execute`, which queues a function
for the connection's thread, and `Connection._conn`, the sqlite3 connection) and on SQLAlchemy's
aiosqlite adapter classes; pyproject.toml bounds both libraries to the range tested (the upper
bounds move only after every database test, which all run through here, passed on the new
release).
"""

from __future__ import annotations

import sqlite3
from collections import deque
from typing import Any

import aiosqlite
from sqlalchemy.dialects.sqlite.aiosqlite import (
    AsyncAdapt_aiosqlite_connection,
    AsyncAdapt_aiosqlite_cursor,
    AsyncAdapt_aiosqlite_dbapi,
)
from sqlalchemy.util.concurrency import await_

from tenants.sqlite_turn import WriterTurn, opens_a_write

#: (description, rows, rowcount, lastrowid) of one executed statement.
_Executed = tuple[Any, list[Any], int, int | None]


def _execute(
    connection: sqlite3.Connection,
    operation: str,
    parameters: Any,
    many: bool,
    turn: WriterTurn | None,
) -> _Executed:
    """On the connection's thread: run one statement to completion, first waiting for the
    writer's turn if it opens a write transaction (`tenants.sqlite_turn`). Rows are fetched
    before rowcount is read: for a statement with RETURNING, sqlite3 counts rows as they are
    read."""
    if turn is not None and not connection.in_transaction and opens_a_write(operation):
        turn.take()
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
    fetched and closed on the connection's thread in one call."""

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
        connection: aiosqlite.Connection = self._connection  # type: ignore[assignment]
        turn = self._adapt_connection._turn  # type: ignore[attr-defined]
        executed = await connection._execute(
            _execute, connection._conn, operation, parameters, many, turn
        )
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
    __slots__ = ("_turn",)

    _cursor_cls: type[AsyncAdapt_aiosqlite_cursor] = _OneCrossingCursor

    def __init__(self, dbapi: Any, connection: Any, turn: WriterTurn | None) -> None:
        super().__init__(dbapi, connection)
        #: Taken on the connection's thread when a statement opens a write transaction,
        #: given back here when it ends.
        self._turn = turn

    def _in_transaction(self) -> bool:
        """Read on the loop's thread while the connection's thread is idle (statements of one
        connection are awaited one after the other): a plain read of SQLite's autocommit flag."""
        connection: sqlite3.Connection | None = self._connection._connection
        return connection is not None and connection.in_transaction

    def rollback(self) -> None:
        try:
            if self._in_transaction():
                super().rollback()
        finally:
            self._give_back()

    def commit(self) -> None:
        try:
            if self._in_transaction():
                super().commit()
        finally:
            self._give_back()

    def close(self) -> None:
        try:
            super().close()
        finally:
            self._drop_turn()

    def terminate(self) -> None:
        """An invalidated connection (its transaction cut short) lets go of its turn too."""
        try:
            super().terminate()
        finally:
            self._drop_turn()

    def _drop_turn(self) -> None:
        if self._turn is not None:
            self._turn.close()
            self._turn = None

    def _give_back(self) -> None:
        if self._turn is not None:
            self._turn.give_back()


class OneCrossingDBAPI(AsyncAdapt_aiosqlite_dbapi):
    """The DB-API module SQLAlchemy's aiosqlite dialect is given (`create_async_engine(...,
    module=OneCrossingDBAPI())`)."""

    def __init__(self) -> None:
        super().__init__(aiosqlite, sqlite3)

    def connect(self, *arg: Any, **kw: Any) -> _OneCrossingConnection:
        # aiosqlite's connection is the DB-API connection SQLAlchemy's adapter wraps.
        connection: Any = aiosqlite.connect(*arg, **kw)
        connection._thread.daemon = True  # as SQLAlchemy's own adapter does
        database = str(arg[0] if arg else kw.get("database", ""))
        turn = None if kw.get("uri") else WriterTurn.beside(database, kw.get("timeout", 5.0))
        return _OneCrossingConnection(self, await_(connection), turn)
