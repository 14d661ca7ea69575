"""Per-tenant, per-day usage (runs and CPU time), added up in the runs' own transactions."""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date

from sqlalchemy import select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection

from tenants.lean_statements import BulkStatement
from tenants.tables import usage


@dataclass(frozen=True)
class Usage:
    """What a tenant used on one UTC day."""

    runs: int
    cpu_ms: int


@functools.cache
def _upsert(dialect_name: str) -> BulkStatement:
    """The upsert, built once per dialect: building it (its `excluded` alias above all) cost
    more than running it, and it runs with every batch of completed runs."""
    dialect = postgresql if dialect_name == "postgresql" else sqlite
    statement = dialect.insert(usage)
    upsert = statement.on_conflict_do_update(
        index_elements=["tenant_id", "day"],
        set_={
            "runs": usage.c.runs + statement.excluded.runs,
            "cpu_ms": usage.c.cpu_ms + statement.excluded.cpu_ms,
        },
    )
    return BulkStatement(upsert, ["tenant_id", "day", "runs", "cpu_ms"])


async def add_usage(conn: AsyncConnection, rows: Iterable[tuple[str, date, int, int]]) -> None:
    """Add (tenant_id, day, runs, cpu_ms) to the day's totals, creating the day's row if new."""
    totals: dict[tuple[str, date], list[int]] = {}
    for tenant_id, day, runs, cpu_ms in rows:
        total = totals.setdefault((tenant_id, day), [0, 0])
        total[0] += runs
        total[1] += cpu_ms
    if not totals:
        return
    await _upsert(conn.dialect.name).execute_many(
        conn,
        [
            {"tenant_id": t, "day": d, "runs": runs, "cpu_ms": cpu}
            for (t, d), (runs, cpu) in sorted(totals.items())
        ],
    )


async def get_usage(conn: AsyncConnection, tenant_id: str, day: date) -> Usage:
    query = select(usage.c.runs, usage.c.cpu_ms).where(
        usage.c.tenant_id == tenant_id, usage.c.day == day
    )
    row = (await conn.execute(query)).first()
    return Usage(0, 0) if row is None else Usage(int(row.runs), int(row.cpu_ms))
