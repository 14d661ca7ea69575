"""Filling a SQLite database with many tenants and rules fast (sqlite3 bulk inserts, not the API).

Rules are spread evenly, tenant after tenant (so the unique index on actions grows in order).
Each rule runs daily at a minute of its own and has its one pending action 2-26 hours ahead,
as the engine would have planned it, so nothing falls due while the idle engine is measured.
Rows are written in the format SQLAlchemy uses for these columns on SQLite (UTC timestamps
as text, JSON as text), straight through sqlite3, with the secondary indexes dropped during
the load and rebuilt after it (the usual bulk-load move: one sort instead of a million random
index inserts).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy.engine import make_url

CHUNK = 50_000
DAY_MINUTES = 24 * 60
CODE = "def main(ctx):\n    return None\n"

_TENANT = "INSERT INTO tenants (id, name, status, created_at) VALUES (?, ?, ?, ?)"
_RULE = (
    "INSERT INTO rules (id, tenant_id, name, schedule, runtime, code, params, created_at,"
    " updated_at) VALUES (?, ?, ?, ?, 'python', ?, '{}', ?, ?)"
)
_ACTION = (
    "INSERT INTO actions (tenant_id, rule_id, rule_version, scheduled_at, due_at, status,"
    " max_attempts, created_at) VALUES (?, ?, 1, ?, ?, 'pending', 3, ?)"
)


def _text(moment: datetime) -> str:
    """An instant as SQLAlchemy stores a UtcDateTime on SQLite: naive UTC text."""
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")


def _rows(
    start: int, stop: int, total: int, tenant_ids: list[str], now: datetime
) -> Iterator[tuple[tuple[str, ...], tuple[str, ...]]]:
    created = _text(now)
    base = now.replace(second=0, microsecond=0) + timedelta(hours=2)
    for index in range(start, stop):
        due_at = base + timedelta(minutes=index % DAY_MINUTES)
        rule_id = f"r_bench{index:08d}"
        tenant_id = tenant_ids[index * len(tenant_ids) // total]
        schedule = f"FREQ=DAILY;BYHOUR={due_at.hour};BYMINUTE={due_at.minute}"
        due = _text(due_at)
        yield (
            (rule_id, tenant_id, f"daily {index}", schedule, CODE, created, created),
            (tenant_id, rule_id, due, due, created),
        )


def _secondary_indexes(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    """(name, CREATE statement) of the indexes on rules and actions that the schema declared."""
    query = (
        "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"
        " AND tbl_name IN ('rules', 'actions')"
    )
    return [(str(name), str(sql)) for name, sql in conn.execute(query)]


def populate(async_url: str, tenant_count: int, rule_count: int) -> list[str]:
    """Insert tenants and rules (spread evenly) with their next actions; return tenant ids."""
    path = Path(str(make_url(async_url).database))
    now = datetime.now(UTC)
    tenant_ids = [f"t_bench{i:06d}" for i in range(tenant_count)]
    with sqlite3.connect(path) as conn:
        indexes = _secondary_indexes(conn)
        for name, _sql in indexes:
            conn.execute(f'DROP INDEX "{name}"')
        conn.executemany(
            _TENANT,
            [(t, f"bench-{i}", "active", _text(now)) for i, t in enumerate(tenant_ids)],
        )
        for start in range(0, rule_count, CHUNK):
            pairs = list(_rows(start, min(start + CHUNK, rule_count), rule_count, tenant_ids, now))
            conn.executemany(_RULE, [rule for rule, _ in pairs])
            conn.executemany(_ACTION, [action for _, action in pairs])
        for _name, sql in indexes:
            conn.execute(sql)
    conn.close()
    return tenant_ids
