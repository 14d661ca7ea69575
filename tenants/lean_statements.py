"""Statements the engine runs for every action or batch, executed without SQLAlchemy's
per-statement and per-row work.

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

A statement that returns rows (the loop's reads, its claims with RETURNING) is the same on
SQLite: compiled once, its parameters bound in the driver's order (a statement with expanding
`IN` lists has them rendered per call, as SQLAlchemy renders them), and each row read into a
mapping through its columns' own result processors. Elsewhere it runs through
`Connection.execute`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar, cast
from weakref import WeakKeyDictionary

from sqlalchemy.engine import Dialect
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.dml import UpdateBase, ValuesBase
from sqlalchemy.sql.selectable import Select
from sqlalchemy.sql.sqltypes import TupleType

from tenants.sqlite_driver import one_crossing

Processor = Callable[[Any], Any] | None
_Form = TypeVar("_Form")


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


def _in_driver_order(compiled: SQLCompiler, dialect: Dialect) -> _Compiled:
    """`compiled`'s parameters in the driver's order: those its caller gives (required ones)
    and those the statement fixes itself, the latter in the driver's form once."""
    if not compiled.positional or compiled.positiontup is None:
        raise TypeError(f"{dialect.name}: lean statements need a positional parameter style")
    order = tuple((name, _bind_processor(compiled, name, dialect)) for name in compiled.positiontup)
    fixed = {}
    for name, processor in order:
        bind = compiled.binds[name]
        if not bind.required:
            value = bind.effective_value
            fixed[name] = value if processor is None else processor(value)
    return _Compiled(compiled.string, order, fixed)


def _bind_processor(compiled: SQLCompiler, name: str, dialect: Dialect) -> Processor:
    return compiled.binds[name].type.dialect_impl(dialect).bind_processor(dialect)


class _PerDialect(Generic[_Form]):
    """A statement's compiled form, made once per dialect object: its parameter style and its
    types' settings (a JSON serializer, say) are its own."""

    def __init__(self) -> None:
        self._by_dialect: WeakKeyDictionary[Dialect, _Form] = WeakKeyDictionary()

    def _compiled(self, dialect: Dialect) -> _Form:
        found = self._by_dialect.get(dialect)
        if found is None:
            found = self._by_dialect[dialect] = self._compile(dialect)
        return found

    def _compile(self, dialect: Dialect) -> _Form:
        raise NotImplementedError


class BulkStatement(_PerDialect[_Compiled]):
    """An INSERT or UPDATE whose rows give each of `names` (nothing is defaulted); the
    statement's own values (a status it compares with, say) are bound once."""

    def __init__(self, statement: ValuesBase, names: Sequence[str]) -> None:
        super().__init__()
        self._statement = statement
        self._names = frozenset(names)

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

    def _compile(self, dialect: Dialect) -> _Compiled:
        # for an executemany: no RETURNING of generated ids (PostgreSQL would send a row back
        # for every row inserted, for the driver to drop)
        compiled = self._statement.compile(
            dialect=dialect, column_keys=list(self._names), for_executemany=True
        )
        if compiled.insert_prefetch or compiled.update_prefetch:
            raise TypeError("a column default computed in Python needs SQLAlchemy's executemany")
        if compiled.implicit_returning or compiled.returning:
            raise TypeError("a bulk statement returns nothing")
        return _in_driver_order(compiled, dialect)


#: Renderings kept per statement (one per shape of its `IN` lists) before it starts over.
RENDERINGS_KEPT = 256


@dataclass(frozen=True)
class _Rendering:
    """A statement with its `IN` lists rendered for one shape (each list's length)."""

    sql: str
    #: Per parameter in the driver's order: its name, which item of its list (-1: the value
    #: itself), its bind processor.
    steps: tuple[tuple[str, int, Processor], ...]
    #: The values of the parameters the statement fixes itself.
    fixed: Mapping[str, Any]


@dataclass(frozen=True)
class _Reader:
    """A compiled statement that returns rows, on one dialect."""

    compiled: SQLCompiler
    #: The parameters bound in the driver's order, when no `IN` list is rendered per call.
    plain: _Compiled | None
    #: Each parameter's bind processor but the `IN` lists' (rendered per call, with theirs).
    processors: Mapping[str, Processor]
    #: The `IN` lists' parameters, and which of them hold tuples (`(id, version) IN ...`).
    expanding: tuple[str, ...]
    of_tuples: frozenset[str]
    #: Each row's mapping keys, in the columns' order.
    keys: tuple[str, ...]
    #: (key, its column type's result processor) of the columns that have one.
    processed: tuple[tuple[str, Callable[[Any], Any]], ...]
    renderings: dict[tuple[int, ...], _Rendering] = field(default_factory=dict)

    def bind(self, params: Mapping[str, Any]) -> tuple[str, tuple[Any, ...]]:
        """The statement's text and its parameters in the driver's form and order."""
        if self.plain is not None:
            return self.plain.sql, self.plain.row(params)
        shape = tuple(len(params[name]) for name in self.expanding)
        rendering = self.renderings.get(shape) or self._render(shape, params)
        items = {
            name: [v for row in params[name] for v in row]
            if name in self.of_tuples
            else params[name]
            for name in self.expanding
        }
        bound = []
        for name, item, processor in rendering.steps:
            if item >= 0:
                value = items[name][item]
            else:
                value = params[name] if name in params else rendering.fixed[name]
            bound.append(value if processor is None else processor(value))
        return rendering.sql, tuple(bound)

    def _render(self, shape: tuple[int, ...], params: Mapping[str, Any]) -> _Rendering:
        """Render the `IN` lists as SQLAlchemy does (`construct_expanded_state`), and note
        where each rendered parameter's value comes from."""
        state = self.compiled.construct_expanded_state(params)
        processors = {**self.processors, **state.processors}
        origin = {
            rendered: (name, item)
            for name, names in state.parameter_expansion.items()
            for item, rendered in enumerate(names)
        }
        steps = tuple(
            (*origin.get(name, (name, -1)), processors.get(name))
            for name in state.positiontup or ()
        )
        fixed = {n: v for n, v in state.parameters.items() if n not in params and n not in origin}
        if len(self.renderings) >= RENDERINGS_KEPT:
            self.renderings.clear()
        rendering = self.renderings[shape] = _Rendering(state.statement, steps, fixed)
        return rendering

    def read(self, rows: Sequence[Sequence[Any]]) -> list[dict[str, Any]]:
        keys, processed = self.keys, self.processed
        read = []
        for row in rows:
            mapping = dict(zip(keys, row, strict=True))
            for key, processor in processed:
                mapping[key] = processor(mapping[key])
            read.append(mapping)
        return read


class RowStatement(_PerDialect[_Reader]):
    """A SELECT, or a write with RETURNING, whose rows are wanted as mappings (column key to
    value, as `Result.mappings()` gives them)."""

    def __init__(self, statement: Select[Any] | UpdateBase) -> None:
        super().__init__()
        self.statement = statement
        self._columns = list(statement.exported_columns)
        keys = [str(c.key) for c in self._columns]
        if len(set(keys)) != len(keys):
            raise TypeError(f"two columns share a key (rows are read by key): {sorted(keys)}")

    async def mappings(
        self, conn: AsyncConnection, params: Mapping[str, Any]
    ) -> Sequence[Mapping[str, Any]]:
        sqlite = one_crossing(conn)
        if sqlite is None:
            found = (await conn.execute(self.statement, params)).mappings().all()
            return cast(Sequence[Mapping[str, Any]], found)
        reader = self._compiled(conn.dialect)
        return reader.read(await sqlite.fetch_all(*reader.bind(params)))

    def _compile(self, dialect: Dialect) -> _Reader:
        compiled = self.statement.compile(dialect=dialect)
        if not isinstance(compiled, SQLCompiler) or not compiled.positional:
            raise TypeError(f"{dialect.name}: lean statements need a positional parameter style")
        keys = tuple(str(column.key) for column in self._columns)
        processed = []
        for column in self._columns:
            processor = column.type.dialect_impl(dialect).result_processor(dialect, None)
            if processor is not None:
                processed.append((str(column.key), processor))
        expands = compiled.post_compile_params | compiled.literal_execute_params
        plain = None if expands else _in_driver_order(compiled, dialect)
        processors = {
            name: _bind_processor(compiled, name, dialect)
            for name, bind in compiled.binds.items()
            if bind not in expands
        }
        if any(not bind.required for bind in expands):
            raise TypeError("an IN list the statement fixes itself: bind it as a parameter")
        expanding = tuple(sorted(compiled.bind_names[bind] for bind in expands))
        of_tuples = frozenset(
            compiled.bind_names[bind] for bind in expands if isinstance(bind.type, TupleType)
        )
        return _Reader(compiled, plain, processors, expanding, of_tuples, keys, tuple(processed))
