"""Token buckets shared by the API processes of one `cadenza serve`, in a SQLite file of its
run directory.

Each API process answering with buckets of its own would let a tenant make N times its
request quota, and a guesser fail N times as often, with N API processes (a client reaches
another process with each new connection). A small local file is the one place they all see
without a round trip to another process or a write to the shared database: one short
immediate transaction per token taken (a check for a token is a plain read), on a file that
is never synced (it holds nothing that must survive the `serve` that made it). The arithmetic
is `api.ratelimit`'s, so a shared bucket answers exactly as one in memory would.

The file is bounded: a bucket untouched for a minute is full again (it refills a minute's
allowance in a minute), so it is the same as an absent one and is deleted now and then.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

from api.ratelimit import refilled, wait_for

#: Any bucket idle this long is full again, whatever its rate.
FULL_AFTER_S = 60.0
#: Visits between two sweeps of full buckets, per process.
SWEEP_EVERY = 1_000
#: How long a visit waits for another process's transaction (they last microseconds).
BUSY_TIMEOUT_S = 5.0
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS buckets ("
    "key TEXT PRIMARY KEY, tokens REAL NOT NULL, updated_s REAL NOT NULL) WITHOUT ROWID"
)


def prepare(path: Path) -> None:
    """Make the file (in WAL mode, with its table) before the processes that share it start.

    Opening a new file, each process would switch it to WAL itself. The switch needs the file
    to itself, and two processes asking at once can each hold what the other waits for, so
    SQLite refuses one at once instead of waiting: an API process of `serve` sometimes failed
    to start so. Opening a prepared file switches and creates nothing: it needs no lock that
    another process's visit could hold."""
    _opened(path).close()


def _opened(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=OFF")
    conn.execute(_SCHEMA)
    return conn


class SharedTokenBuckets:
    """`api.ratelimit.TokenBuckets` kept in `path`, under keys prefixed with `namespace` (one
    file holds the request buckets and the failed-authentication ones). `monotonic_s` must be
    one clock for every process: `time.monotonic` is the machine's."""

    def __init__(
        self, path: Path, namespace: str, monotonic_s: Callable[[], float] = time.monotonic
    ) -> None:
        self._conn = _opened(path)
        self._namespace = namespace
        self._now_s = monotonic_s
        self._visits = 0

    def take(self, key: str, per_minute: int) -> int | None:
        """Take one token for `key`: None if there was one, else the seconds until one is back."""
        now_s, name = self._now_s(), self._name(key)
        self._conn.execute("BEGIN IMMEDIATE")
        with self._conn:  # commits, or rolls back on an exception
            tokens, rate_per_s, since_s = self._refilled(name, now_s, per_minute)
            wait = wait_for(tokens, rate_per_s)
            if wait is None:
                tokens -= 1.0
            self._conn.execute(
                "INSERT OR REPLACE INTO buckets (key, tokens, updated_s) VALUES (?, ?, ?)",
                (name, tokens, max(now_s, since_s)),
            )
            self._sweep(now_s)
        return wait

    def wait_s(self, key: str, per_minute: int) -> int | None:
        """Seconds until `key` has a token again, or None if it has one now (none is taken).
        A read, with no transaction of its own: the refill it computes follows from the row
        and the clock, so writing it back would change nothing another visit sees."""
        tokens, rate_per_s, _ = self._refilled(self._name(key), self._now_s(), per_minute)
        return wait_for(tokens, rate_per_s)

    def _name(self, key: str) -> str:
        return f"{self._namespace}:{key}"

    def _refilled(self, name: str, now_s: float, per_minute: int) -> tuple[float, float, float]:
        """The bucket's tokens now, its refill rate per second and when it was last written
        (an absent bucket is full)."""
        row = self._conn.execute(
            "SELECT tokens, updated_s FROM buckets WHERE key = ?", (name,)
        ).fetchone()
        held, since_s = row if row else (float(max(per_minute, 1)), now_s)
        tokens, rate_per_s = refilled(held, now_s - since_s, per_minute)
        return tokens, rate_per_s, since_s

    def _sweep(self, now_s: float) -> None:
        self._visits += 1
        if self._visits % SWEEP_EVERY == 0:
            self._conn.execute("DELETE FROM buckets WHERE updated_s < ?", (now_s - FULL_AFTER_S,))
