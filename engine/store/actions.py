"""Statements on `actions` that the service makes: insert, read, list, cancel, upsert by key.

The loop's statements (claim, complete, sweep) live in `store/queue.py`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, delete, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import RowMapping
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.sql.elements import ColumnElement

from engine.domain.due import Planned
from engine.domain.records import ActionStatus, SkipReason
from engine.store.rows import NewAction, action_row, planned_action
from engine.store.tables import actions

#: Statements of every submission, built once (keying a statement built per call costs the API
#: about as much as running it).
_INSERT = actions.insert().returning(actions.c.id)
_BY_ID = select(actions).where(
    actions.c.tenant_id == bindparam("i_tenant"), actions.c.id == bindparam("i_id")
)
_BY_KEY = select(actions).where(
    actions.c.tenant_id == bindparam("k_tenant"), actions.c.key == bindparam("k_key")
)


async def insert_action(conn: AsyncConnection, new: NewAction, now: datetime) -> int:
    """Insert one action; its id."""
    return int((await conn.execute(_INSERT, action_row(new, now))).scalar_one())


async def insert_actions(conn: AsyncConnection, rows: Sequence[Mapping[str, Any]]) -> None:
    """Bulk insert of ready-made rows (seeding a benchmark or a test's backlog)."""
    if rows:
        await conn.execute(actions.insert(), [dict(r) for r in rows])


async def insert_planned(conn: AsyncConnection, plans: Sequence[Planned], now: datetime) -> None:
    """Write the occurrences the domain planned (next ones and traces) in one statement."""
    if plans:
        rows = [action_row(planned_action(p), now) for p in plans]
        await conn.execute(actions.insert(), rows)


async def insert_unless_keyed(
    conn: AsyncConnection, made: Sequence[tuple[NewAction, datetime]]
) -> None:
    """Insert each action (with the instant it was made) but those whose key the tenant
    already uses (that action stays)."""
    if not made:
        return
    dialect = postgresql if conn.dialect.name == "postgresql" else sqlite
    statement = dialect.insert(actions).on_conflict_do_nothing(index_elements=["tenant_id", "key"])
    await conn.execute(statement, [action_row(new, now) for new, now in made])


async def get_action(conn: AsyncConnection, tenant_id: str, action_id: int) -> RowMapping | None:
    found = await conn.execute(_BY_ID, {"i_tenant": tenant_id, "i_id": action_id})
    return found.mappings().first()


async def find_by_key(conn: AsyncConnection, tenant_id: str, key: str) -> RowMapping | None:
    return (await conn.execute(_BY_KEY, {"k_tenant": tenant_id, "k_key": key})).mappings().first()


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


def _not_started(now: datetime) -> ColumnElement[bool]:
    """Actions a change may still reach: pending, or claimed ahead of a due time still to come
    (`engine.loop.claim_lead`). Changing a claimed action revokes the claim (its
    version moves on): the node holding it either sees the change and does not start the run,
    or runs it and its completion no longer holds, so none of its effects are committed."""
    claimed_ahead = (actions.c.status == ActionStatus.RUNNING) & (actions.c.due_at > now)
    return (actions.c.status == ActionStatus.PENDING) | claimed_ahead


#: What revoking a claim clears.
_UNCLAIMED = {"claimed_by": None, "lease_until": None}


async def update_unstarted(
    conn: AsyncConnection,
    action: RowMapping,
    values: Mapping[str, Any],
    now: datetime,
) -> bool:
    """Change an action that has not started (see `_not_started`), only if nobody touched it
    since it was read as `action`; whether it changed."""
    result = await conn.execute(
        update(actions)
        .where(
            actions.c.id == action["id"],
            actions.c.version == action["version"],
            _not_started(now),
        )
        .values(**values, **_UNCLAIMED, version=action["version"] + 1)
    )
    return result.rowcount == 1


async def cancel_unstarted(conn: AsyncConnection, action: RowMapping, now: datetime) -> bool:
    """Cancel (reason user) an action that has not started, as `update_unstarted` changes it;
    whether it was cancelled."""
    cancelled = {"status": ActionStatus.CANCELLED, "reason": SkipReason.USER, "finished_at": now}
    return await update_unstarted(conn, action, cancelled, now)


async def finish_pending_of_rule(
    conn: AsyncConnection, rule_id: str, status: str, reason: str, now: datetime
) -> int:
    """Finish every action of a rule that has not started (its version changed, it was paused
    or deleted), revoking the claims of those claimed ahead (see `_not_started`)."""
    result = await conn.execute(
        update(actions)
        .where(actions.c.rule_id == rule_id, _not_started(now))
        .values(
            status=status,
            reason=reason,
            finished_at=now,
            version=actions.c.version + 1,
            **_UNCLAIMED,
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
            actions.c.status == ActionStatus.SKIPPED,
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
    conn: AsyncConnection, rule_id: str, start: datetime, end: datetime, limit: int
) -> list[RowMapping]:
    """The rule's actions scheduled in [start, end), the first `limit` in time order."""
    query = (
        select(actions)
        .where(
            actions.c.rule_id == rule_id,
            actions.c.scheduled_at >= start,
            actions.c.scheduled_at < end,
        )
        .order_by(actions.c.scheduled_at, actions.c.id)
        .limit(limit)
    )
    return list((await conn.execute(query)).mappings())
