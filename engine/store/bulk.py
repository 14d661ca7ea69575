"""A statement the engine runs for every action, executed without SQLAlchemy's per-row work.

Run through `Connection.execute`, an executemany builds each row's parameters anew: a dict per
row, and every column's type processor looked up and applied. For the run records of a burst
that work, on the event loop's thread, cost more than the database's own insert (figures in
docs/performance.md). Here the statement is compiled once per dialect, with the driver's
parameter style; each row becomes a tuple in the driver's order, its values passed through
their column types' own bind processors, so what is stored is exactly what SQLAlchemy would
have stored; and the tuples go to the driver's executemany as they are. On SQLite they go
past SQLAlchemy's execution too, in one crossing to the connection's thread
(`tenants.sqlite_driver`): at a low steady rate each batch is one action, and the execution
context, events and result SQLAlchemy sets up for a statement cost the loop more than the
crossing itself (docs/performance.md).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from weakref import WeakKeyDictionary

from sqlalchemy.engine import Dialect
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.sql.dml import ValuesBase

from tenants.sqlite_driver import one_crossing

Processor = Callable[[Any], Any] | None


@dataclass(frozen=True)
class _Compiled:
    sql: str
    #: (parameter name, its type's bind processor) in the driver's order.
    order: tuple[tuple[str, Processor], ...]
    #: The driver's values of the parameters the statement fixes itself (`status = 'running'`).
    fixed: Mapping[str, Any]

    def row(self, values: Mapping[str, Any]) -> tuple[Any, ...]:
        fixed = self.fixed
        return tuple(
            [
                fixed[n] if n in fixed else values[n] if p is None else p(values[n])
                for n, p in self.order
            ]
        )


class BulkStatement:
    """An INSERT or UPDATE whose rows give each of `names` (nothing is defaulted); the
    statement's own values (a status it compares with, say) are bound once."""

    def __init__(self, statement: ValuesBase, names: Sequence[str]) -> None:
        self._statement = statement
        self._names = frozenset(names)
        #: Compiled per dialect object: its parameter style and its types' settings (a JSON
        #: serializer, say) are its own.
        self._by_dialect: WeakKeyDictionary[Dialect, _Compiled] = WeakKeyDictionary()

    async def execute_many(self, conn: AsyncConnection, rows: Sequence[Mapping[str, Any]]) -> None:
        if not rows:
            return
        compiled = self._compiled(conn.dialect)
        driver_rows = [compiled.row(values) for values in rows]
        sqlite = one_crossing(conn)
        if sqlite is not None:
            await sqlite.execute_many(compiled.sql, driver_rows)
        else:
            await conn.exec_driver_sql(compiled.sql, driver_rows)

    def _compiled(self, dialect: Dialect) -> _Compiled:
        found = self._by_dialect.get(dialect)
        if found is None:
            found = self._by_dialect[dialect] = self._compile(dialect)
        return found

    def _compile(self, dialect: Dialect) -> _Compiled:
        # for an executemany: no RETURNING of generated ids (PostgreSQL would send a row back
        # for every row inserted, for the driver to drop)
        compiled = self._statement.compile(
            dialect=dialect, column_keys=list(self._names), for_executemany=True
        )
        if not compiled.positional or compiled.positiontup is None:
            raise TypeError(f"{dialect.name}: bulk statements need a positional parameter style")
        if compiled.insert_prefetch or compiled.update_prefetch:
            raise TypeError("a column default computed in Python needs SQLAlchemy's executemany")
        if compiled.implicit_returning or compiled.returning:
            raise TypeError("a bulk statement returns nothing")
        order = tuple(
            (name, compiled.binds[name].type.dialect_impl(dialect).bind_processor(dialect))
            for name in compiled.positiontup
        )
        fixed = {}
        for name, processor in order:
            if name not in self._names:
                value = compiled.binds[name].effective_value
                fixed[name] = value if processor is None else processor(value)
        return _Compiled(compiled.string, order, fixed)
