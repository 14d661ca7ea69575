"""What becomes of a claim besides its completion: the start of its run written down, the
claim given back before its run started, or taken back from a node that will never report.

A claim whose run has not started (`started_at` NULL) goes back to pending as if it had never
been claimed: its attempt is not counted and nothing is recorded. A claim whose run started is
a lost attempt: it is counted, recorded (by `engine.loop.takeback`) and retried, or failed when no
attempt is left.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import ColumnElement, bindparam, select, tuple_, update
from sqlalchemy.engine import RowMapping
from sqlalchemy.ext.asyncio import AsyncConnection

from engine.domain.records import ActionStatus
from engine.store.tables import actions
from tenants.lean_statements import BulkStatement


@dataclass(frozen=True)
class StartMark:
    """A claimed run started at `started_at` (while its claim is `claim_version`)."""

    action_id: int
    claim_version: int
    started_at: datetime


_MARK = BulkStatement(
    update(actions)
    .where(
        actions.c.id == bindparam("m_id"),
        actions.c.version == bindparam("m_version"),
        actions.c.status == ActionStatus.RUNNING,
    )
    .values(started_at=bindparam("m_at", type_=actions.c.started_at.type)),
    ["m_id", "m_version", "m_at"],
)


async def mark_started(conn: AsyncConnection, marks: Sequence[StartMark]) -> None:
    rows = [
        {"m_id": m.action_id, "m_version": m.claim_version, "m_at": m.started_at} for m in marks
    ]
    await _MARK.execute_many(conn, rows)


def _held(claims: Mapping[int, int]) -> ColumnElement[bool]:
    return tuple_(actions.c.id, actions.c.version).in_(list(claims.items())) & (
        actions.c.status == ActionStatus.RUNNING
    )


async def give_back(conn: AsyncConnection, claims: Mapping[int, int]) -> set[int]:
    """Of the (id, version) claims, those whose run has not started go back to pending,
    uncounted and due as they were; their ids."""
    if not claims:
        return set()
    statement = (
        update(actions)
        .where(_held(claims), actions.c.started_at.is_(None))
        .values(
            status=ActionStatus.PENDING,
            attempt=actions.c.attempt - 1,
            claimed_by=None,
            lease_until=None,
            version=actions.c.version + 1,
        )
        .returning(actions.c.id)
    )
    return {row.id for row in await conn.execute(statement)}


async def finish_lost(
    conn: AsyncConnection, rows: Sequence[RowMapping], **values: object
) -> set[int]:
    """End the claims read as `rows` (a run started and lost) with `values`; their ids."""
    if not rows:
        return set()
    statement = (
        update(actions)
        .where(_held({r["id"]: r["version"] for r in rows}))
        .values(**values, claimed_by=None, lease_until=None, version=actions.c.version + 1)
        .returning(actions.c.id)
    )
    return {row.id for row in await conn.execute(statement)}


async def expired(conn: AsyncConnection, now: datetime, limit: int = 500) -> list[RowMapping]:
    """Running actions whose lease expired: their node died (or lost the database)."""
    query = (
        select(actions)
        .where(actions.c.status == ActionStatus.RUNNING, actions.c.lease_until < now)
        .order_by(actions.c.lease_until)
        .limit(limit)
    )
    return list((await conn.execute(query)).mappings())


async def of_node(
    conn: AsyncConnection, node: str, ids: Sequence[int] | None = None
) -> list[RowMapping]:
    """Running actions claimed by `node` (only those of `ids`, when given)."""
    query = select(actions).where(
        actions.c.status == ActionStatus.RUNNING, actions.c.claimed_by == node
    )
    if ids is not None:
        query = query.where(actions.c.id.in_(ids))
    return list((await conn.execute(query)).mappings())
