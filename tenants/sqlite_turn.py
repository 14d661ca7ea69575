"""One writer at a time across the processes of a SQLite database, handed over at once.

SQLite lets one connection write at a time, and a connection that finds the database locked
retries in sleeps that grow to 100 ms (its busy handler). Between processes, `serve`'s engine
and its API processes, that is slow and unfair: a writer that keeps coming back, as the engine
does, takes the lock again and again between another process's sleeps, and an API write
waited seconds behind a busy engine (docs/performance.md, decision 133). So a connection takes
a turn before it starts a write transaction: an exclusive `flock` on a file beside the
database, `<database>-writer`, given back when the transaction ends. A waiter looks for its
turn every millisecond; past the busy timeout it goes on without one and SQLite's own wait
decides, as before. Reads take no turn, and a process that dies lets go of its turn with its
files.
"""

from __future__ import annotations

import fcntl
import os
import re
import time

#: What makes Python's sqlite3 open a transaction when none is open (its implicit BEGIN
#: before a DML statement), and the statements that open one themselves.
_OPENS_A_WRITE = re.compile(r"\s*(INSERT|UPDATE|DELETE|REPLACE|SAVEPOINT|BEGIN)\b", re.IGNORECASE)
#: How often a waiting connection looks for its turn.
POLL_S = 0.001
SUFFIX = "-writer"


def opens_a_write(statement: str) -> bool:
    return _OPENS_A_WRITE.match(statement) is not None


class WriterTurn:
    """One connection's claim on the database's writer file."""

    def __init__(self, fd: int, patience_s: float) -> None:
        self._fd = fd
        self._patience_s = patience_s
        self._held = False

    @classmethod
    def beside(cls, database: str, patience_s: float) -> WriterTurn | None:
        """The turn for the database file `database`; None for an in-memory database or a
        directory that takes no new file (SQLite's wait alone then)."""
        if database in ("", ":memory:") or database.startswith("file:"):
            return None
        try:
            fd = os.open(database + SUFFIX, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        except OSError:
            return None
        return cls(fd, patience_s)

    def take(self) -> None:
        """Wait for the turn, on the connection's own thread."""
        deadline = time.monotonic() + self._patience_s
        while True:
            try:
                fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    return
                time.sleep(POLL_S)
            else:
                self._held = True
                return

    def give_back(self) -> None:
        if self._held:
            self._held = False
            fcntl.flock(self._fd, fcntl.LOCK_UN)

    def close(self) -> None:
        self._held = False
        os.close(self._fd)
