"""Statements on `actions` that the service makes: insert, read, list, cancel, upsert by key.

The loop's statements (claim, complete, sweep) live in `store/queue.py`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import delete, select, update
from sqlalchemy.engine import RowMapping
from sqlalchemy.ext.asyncio import AsyncConnection

from engine.store.tables import actions


async def insert_action(conn: AsyncConnection, values: Mapping[str, Any]) -> int:
    result = await conn.execute(actions.insert().values(**values).returning(actions.c.id))
    return int(result.scalar_one())


async def insert_actions(conn: AsyncConnection, rows: Sequence[Mapping[str, Any]]) -> None:
    if rows:
        await conn.execute(actions.insert(), [dict(r) for r in rows])


async def get_action(conn: AsyncConnection, tenant_id: str, action_id: int) -> RowMapping | None:
    query = select(actions).where(actions.c.tenant_id == tenant_id, actions.c.id == action_id)
    return (await conn.execute(query)).mappings().first()


async def find_by_key(conn: AsyncConnection, tenant_id: str, key: str) -> RowMapping | None:
    query = select(actions).where(actions.c.tenant_id == tenant_id, actions.c.key == key)
    return (await conn.execute(query)).mappings().first()


async def list_actions(
    conn: AsyncConnection,
    tenant_id: str,
    *,
    status: str | None,
    rule_id: str | None,
    before_id: int | None,
    limit: int,
) -> list[RowMapping]:
    """Newest first, ids below `before_id` (the cursor)."""
    query = select(actions).where(actions.c.tenant_id == tenant_id)
    if status is not None:
        query = query.where(actions.c.status == status)
    if rule_id is not None:
        query = query.where(actions.c.rule_id == rule_id)
    if before_id is not None:
        query = query.where(actions.c.id < before_id)
    return list((await conn.execute(query.order_by(actions.c.id.desc()).limit(limit))).mappings())


async def update_pending(
    conn: AsyncConnection, action_id: int, version: int, values: Mapping[str, Any]
) -> bool:
    """Change a pending action, only if nobody touched it since it was read at `version`."""
    result = await conn.execute(
        update(actions)
        .where(
            actions.c.id == action_id, actions.c.version == version, actions.c.status == "pending"
        )
        .values(**values, version=version + 1)
    )
    return result.rowcount == 1


async def finish_pending_of_rule(
    conn: AsyncConnection, rule_id: str, status: str, reason: str, now: datetime
) -> int:
    """Finish every action of a rule that has not started (its version changed, it was paused
    or deleted): the pending ones, and those claimed ahead of a due time still to come
    (`engine.tenant_loop.CLAIM_AHEAD`). Such a claim is revoked: the node holding it either
    sees the change and does not start the run, or runs it and its completion no longer
    holds, so none of its effects are committed."""
    claimed_ahead = (actions.c.status == "running") & (actions.c.due_at > now)
    result = await conn.execute(
        update(actions)
        .where(actions.c.rule_id == rule_id, (actions.c.status == "pending") | claimed_ahead)
        .values(
            status=status,
            reason=reason,
            finished_at=now,
            version=actions.c.version + 1,
            claimed_by=None,
            lease_until=None,
        )
    )
    return int(result.rowcount)


async def delete_gap_traces_after(conn: AsyncConnection, rule_id: str, after: datetime) -> None:
    """Delete the rule's DST gap traces (skipped, reason dst_gap) scheduled after `after`.

    A trace is written ahead of its jump; once the rule changes, pauses or goes, that version
    will not reach the jump, and planning the new one writes its own traces.
    """
    await conn.execute(
        delete(actions).where(
            actions.c.rule_id == rule_id,
            actions.c.status == "skipped",
            actions.c.reason == "dst_gap",
            actions.c.scheduled_at > after,
        )
    )


async def rule_instants(
    conn: AsyncConnection, rule_id: str, after: datetime, until: datetime
) -> set[datetime]:
    """The instants in (after, until] at which the rule has an action."""
    query = select(actions.c.scheduled_at).where(
        actions.c.rule_id == rule_id,
        actions.c.scheduled_at > after,
        actions.c.scheduled_at <= until,
    )
    return set((await conn.execute(query)).scalars())


async def rule_actions_between(
    conn: AsyncConnection, rule_id: str, start: datetime, end: datetime
) -> list[RowMapping]:
    query = (
        select(actions)
        .where(
            actions.c.rule_id == rule_id,
            actions.c.scheduled_at >= start,
            actions.c.scheduled_at < end,
        )
        .order_by(actions.c.scheduled_at, actions.c.id)
    )
    return list((await conn.execute(query)).mappings())
