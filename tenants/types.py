"""Column types that behave the same on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import BigInteger, DateTime, Integer
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator

#: A 64-bit id that is still SQLite's auto-incrementing rowid.
BigId = BigInteger().with_variant(Integer(), "sqlite")


class UtcDateTime(TypeDecorator[datetime]):
    """An instant: stored in UTC, always read back aware.

    SQLite has no time zones, so a naive value would silently mean "whatever the writer
    thought"; refusing naive datetimes here keeps every instant in the database unambiguous
    and makes string comparison of SQLite timestamps equal to time order.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> Any:
        return None if value is None else _utc(value)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        return None if value is None else _read_as_utc(value)

    def bind_processor(self, dialect: Dialect) -> Callable[[Any], Any] | None:
        """On SQLite, one step from an instant to its stored text, the same text SQLAlchemy's
        DATETIME writes ("2026-11-23 09:00:00.000000", UTC); the general path takes four
        Python calls per value, and the engine binds several per run."""
        if dialect.name == "sqlite":
            return _to_sqlite_text
        return super().bind_processor(dialect)

    def result_processor(self, dialect: Dialect, coltype: object) -> Callable[[Any], Any] | None:
        """On SQLite, one step from stored text to an aware UTC instant (see `bind_processor`)."""
        if dialect.name == "sqlite":
            return _from_sqlite_text
        return super().result_processor(dialect, coltype)


def _utc(value: datetime) -> datetime:
    if value.tzinfo is None:
        raise ValueError(f"naive datetime {value!r} cannot be stored: attach a time zone")
    return value.astimezone(UTC)


def _to_sqlite_text(value: datetime | None) -> str | None:
    if value is None:
        return None
    if value.tzinfo is not UTC:  # most instants the engine binds are UTC already
        value = _utc(value)
    return value.isoformat(" ", "microseconds")[:-6]  # its "+00:00" left out


def _read_as_utc(value: datetime) -> datetime:
    """A stored instant, aware in UTC (SQLite's come back naive, and naive means UTC there)."""
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def _from_sqlite_text(value: str | None) -> datetime | None:
    return None if value is None else _read_as_utc(datetime.fromisoformat(value))
