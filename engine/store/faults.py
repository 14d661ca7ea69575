"""Which database failures are passing: the database is unreachable, restarting, or locked by
another writer past the busy timeout. The engine's loops wait and try again after these; any
other failure is a fault of what was being written (a record the database refuses) and is
handled where it happened (`engine.runs.recorder` isolates it)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

from sqlalchemy import exc as sa_exc

#: SQLSTATE classes of a database that cannot serve now: connection exception (08),
#: insufficient resources (53), operator intervention such as a shutdown (57).
_UNAVAILABLE_CLASSES = frozenset({"08", "53", "57"})
#: SQLSTATEs worth trying again as they are: serialization failure, deadlock, lock timeout.
_RETRYABLE_STATES = frozenset({"40001", "40P01", "55P03"})


def _chain(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    pending: list[BaseException | None] = [exc]
    while pending:
        current = pending.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        pending += [current.__cause__, current.__context__, getattr(current, "orig", None)]


def _is_passing(exc: BaseException) -> bool:
    if isinstance(exc, OSError | TimeoutError | sqlite3.OperationalError):
        return True
    if isinstance(exc, sa_exc.OperationalError | sa_exc.InterfaceError | sa_exc.TimeoutError):
        return True
    if isinstance(exc, sa_exc.DBAPIError) and exc.connection_invalidated:
        return True
    state = getattr(exc, "sqlstate", None)
    return isinstance(state, str) and (
        state[:2] in _UNAVAILABLE_CLASSES or state in _RETRYABLE_STATES
    )


def is_unavailable(exc: BaseException) -> bool:
    """Whether `exc` (or what caused it) says the database is unreachable or busy for now."""
    return any(_is_passing(link) for link in _chain(exc))
