"""Statements on `runs`: one row per attempt, read back scoped by tenant."""

from __future__ import annotations

from collections.abc import Sequence, Set

from sqlalchemy import select
from sqlalchemy.engine import RowMapping
from sqlalchemy.ext.asyncio import AsyncConnection

from engine.domain.rule_filters import RunFilter
from engine.store.rows import RUN_ROW_COLUMNS, NewRun, run_row
from engine.store.rule_filters import run_conditions
from engine.store.tables import runs
from tenants.lean_statements import BulkStatement

#: Inserted once per run: the hottest statement of a burst.
_INSERT = BulkStatement(runs.insert(), RUN_ROW_COLUMNS)


async def insert_runs(
    conn: AsyncConnection, new: Sequence[NewRun], committed: Set[int] = frozenset()
) -> None:
    """Insert `new`; the runs of the actions in `committed` are recorded as committed (their
    effects were committed with them: a record built before it knew, not copied to say so)."""
    if new:
        rows = [run_row(r) for r in new]
        for row in rows:
            if row["action_id"] in committed:
                row["committed"] = True
        await _INSERT.execute_many(conn, rows)


async def ids_by_attempt(conn: AsyncConnection, action_ids: set[int]) -> dict[tuple[int, int], int]:
    """{(action id, attempt): run id} of these actions' runs, the newest of each attempt (a node
    that lost the claim may have recorded the same attempt before). Read back after a batch's
    insert, only for runs that emitted events: an insert that returns ids makes SQLAlchemy
    render a statement per batch, which cost more than the plain insert of the whole batch."""
    if not action_ids:
        return {}
    query = (
        select(runs.c.id, runs.c.action_id, runs.c.attempt)
        .where(runs.c.action_id.in_(action_ids))
        .order_by(runs.c.id)
    )
    return {(row.action_id, row.attempt): row.id for row in await conn.execute(query)}


async def run_ids_of(
    conn: AsyncConnection, tenant_id: str, action_ids: Sequence[int]
) -> list[tuple[int, int]]:
    """(action id, run id) of every run of these actions, newest first: ids only, so that
    however many attempts an action made, none of their output is loaded."""
    query = (
        select(runs.c.action_id, runs.c.id)
        .where(runs.c.tenant_id == tenant_id, runs.c.action_id.in_(action_ids))
        .order_by(runs.c.id.desc())
    )
    return [(row.action_id, row.id) for row in await conn.execute(query)]


async def get_run(conn: AsyncConnection, tenant_id: str, run_id: int) -> RowMapping | None:
    query = select(runs).where(runs.c.tenant_id == tenant_id, runs.c.id == run_id)
    return (await conn.execute(query)).mappings().first()


async def list_runs(
    conn: AsyncConnection,
    tenant_id: str,
    *,
    where: RunFilter,
    before_id: int | None = None,
    limit: int = 50,
) -> list[RowMapping]:
    """Newest first, ids below `before_id` (the cursor)."""
    query = select(runs).where(runs.c.tenant_id == tenant_id, run_conditions(tenant_id, where))
    if before_id is not None:
        query = query.where(runs.c.id < before_id)
    return list((await conn.execute(query.order_by(runs.c.id.desc()).limit(limit))).mappings())
