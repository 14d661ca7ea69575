"""The loop's statements: fetch due work, claim it, finish it, chain the next occurrence.

Claims are set-based optimistic locks: `UPDATE … WHERE (id, version) IN (…) AND
status='pending' RETURNING id, version` — a row another node claimed first, or that changed
since it was read, is simply not returned (every change of an action, its due time included,
moves its version on). Completions hold only while the claim does: `(id, version)` must still
be the claimed pair.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, String, bindparam, select, tuple_, update
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.functions import FunctionElement

from engine.domain.due import DueAction, RuleSnapshot
from engine.domain.records import ActionStatus
from engine.store.snapshots import RULE_COLUMNS, joined_due_action, rule_snapshot
from engine.store.tables import actions, rules
from tenants.lean_statements import BulkStatement, RowStatement


def _pending_of_tenant(excluded: Sequence[str]) -> Any:
    joined = (rules.c[name].label(f"r_{name}") for name in ("id", *RULE_COLUMNS))
    query = select(actions, *joined)
    query = query.select_from(actions.outerjoin(rules, rules.c.id == actions.c.rule_id))
    query = query.where(
        actions.c.tenant_id == bindparam("d_tenant"), actions.c.status == ActionStatus.PENDING
    )
    if excluded:
        query = query.where(actions.c.rule_id.is_(None) | actions.c.rule_id.not_in(excluded))
    return query


def _due(excluded: Sequence[str]) -> Any:
    query = _pending_of_tenant(excluded)
    query = query.where(actions.c.due_at <= bindparam("d_now", type_=actions.c.due_at.type))
    order = (actions.c.priority.desc(), actions.c.due_at, actions.c.id)
    return query.order_by(*order).limit(bindparam("d_limit"))


def _upcoming(excluded: Sequence[str]) -> Any:
    """Next in due order; of those due at one instant, higher priority first, so that what is
    read ahead of a due time is what its claim should take first."""
    order = (actions.c.due_at, actions.c.priority.desc(), actions.c.id)
    query = _pending_of_tenant(excluded).order_by(*order)
    return query.limit(bindparam("d_limit"))


#: The loop's reads without excluded rules (the common case), built once: building and keying
#: this select costs as much as running it on SQLite (docs/performance.md).
_DUE, _UPCOMING = RowStatement(_due(())), RowStatement(_upcoming(()))


async def _read(
    conn: AsyncConnection,
    common: RowStatement,
    build: Callable[[Sequence[str]], Any],
    excluded: Sequence[str],
    params: dict[str, Any],
) -> list[DueAction]:
    """The actions a read finds: the `common` statement, or one built to exclude rules."""
    found: Sequence[Mapping[Any, Any]]
    if excluded:
        found = (await conn.execute(build(excluded), params)).mappings().all()
    else:
        found = await common.mappings(conn, params)
    return [joined_due_action(row) for row in found]


async def fetch_due(
    conn: AsyncConnection,
    tenant_id: str,
    now: datetime,
    limit: int,
    exclude_rule_ids: Iterable[str],
) -> list[DueAction]:
    """Due pending actions of one tenant with their rule, highest priority first, then oldest."""
    params = {"d_tenant": tenant_id, "d_now": now, "d_limit": limit}
    return await _read(conn, _DUE, _due, list(exclude_rule_ids), params)


async def fetch_upcoming(
    conn: AsyncConnection, tenant_id: str, limit: int, exclude_rule_ids: Iterable[str]
) -> list[DueAction]:
    """The tenant's next pending actions in due order, higher priority first among those due
    at one instant (none is due yet), with their rule."""
    params = {"d_tenant": tenant_id, "d_limit": limit}
    return await _read(conn, _UPCOMING, _upcoming, list(exclude_rule_ids), params)


class _Unindexed(FunctionElement[str]):
    """A column compared without its indexes: `+column` on SQLite, the plain column elsewhere."""

    inherit_cache = True
    type = String()


@compiles(_Unindexed)
def _plain(element: _Unindexed, compiler: Any, **kw: Any) -> str:
    return str(compiler.process(element.clauses, **kw))


@compiles(_Unindexed, "sqlite")
def _unary_plus(element: _Unindexed, compiler: Any, **kw: Any) -> str:
    return "+" + str(compiler.process(element.clauses, **kw))


def _read_as(name: str, status: ActionStatus) -> ColumnElement[bool]:
    """Rows exactly as they were read (same id and version: the optimistic lock) and still in
    `status`, bound at execution by `_as_read(name, pairs)`. SQLite must look these rows up by
    primary key: the plain `id IN` is what allows it (for a row-value IN alone it scans), and
    the status is compared through `+status`, because with an index on status SQLite 3.40
    prefers that index over the primary key and reads every pending action (figures in
    docs/performance.md)."""
    return (
        actions.c.id.in_(bindparam(f"{name}_ids", expanding=True))
        & tuple_(actions.c.id, actions.c.version).in_(bindparam(name, expanding=True))
        & (_Unindexed(actions.c.status) == status)
    )


def _as_read(name: str, pairs: Iterable[tuple[int, int]]) -> dict[str, Any]:
    """The parameters of `_read_as(name)` for these (id, version) pairs."""
    listed = list(pairs)
    return {name: listed, f"{name}_ids": [i for i, _ in listed]}


#: Claim statements are built once: building and keying one costs as much as running it on
#: SQLite (docs/performance.md), and the loop claims at every due time.
_CLAIM = RowStatement(
    update(actions)
    .where(_read_as("c_read", ActionStatus.PENDING))
    .values(
        status=ActionStatus.RUNNING,
        version=actions.c.version + 1,
        attempt=actions.c.attempt + 1,
        claimed_by=bindparam("c_node", type_=actions.c.claimed_by.type),
        lease_until=bindparam("c_lease_until", type_=actions.c.lease_until.type),
        claimed_at=bindparam("c_now", type_=actions.c.claimed_at.type),
        started_at=None,
    )
    .returning(actions.c.id, actions.c.version)
)


async def claim(
    conn: AsyncConnection,
    due: Sequence[DueAction],
    node: str,
    now: datetime,
    lease_until: datetime,
) -> dict[int, int]:
    """Claim the actions as read (the caller picks due ones) if they are still pending and
    unchanged since: {id: claimed version} of those won (a row another node claimed first is
    not returned)."""
    if not due:
        return {}
    params = {
        **_as_read("c_read", ((a.id, a.version) for a in due)),
        "c_node": node,
        "c_now": now,
        "c_lease_until": lease_until,
    }
    return {row["id"]: row["version"] for row in await _CLAIM.mappings(conn, params)}


_FINISH_PENDING = RowStatement(
    update(actions)
    .where(_read_as("f_read", ActionStatus.PENDING))
    .values(
        status=bindparam("f_status", type_=actions.c.status.type),
        reason=bindparam("f_reason", type_=actions.c.reason.type),
        finished_at=bindparam("f_now", type_=actions.c.finished_at.type),
        version=actions.c.version + 1,
    )
    .returning(actions.c.id)
)


async def finish_pending(
    conn: AsyncConnection,
    due: Sequence[DueAction],
    status: ActionStatus,
    reason: str | None,
    now: datetime,
) -> set[int]:
    """Finish actions as read, still pending and unchanged, without running them (skipped,
    expired, cancelled): the ids finished."""
    if not due:
        return set()
    params = {
        **_as_read("f_read", ((a.id, a.version) for a in due)),
        "f_status": status,
        "f_reason": reason,
        "f_now": now,
    }
    return {row["id"] for row in await _FINISH_PENDING.mappings(conn, params)}


_HOLD = RowStatement(
    update(actions)
    .where(_read_as("h_claims", ActionStatus.RUNNING))
    .values(version=actions.c.version + 1)
    .returning(actions.c.id)
)


async def hold(conn: AsyncConnection, claims: Mapping[int, int]) -> set[int]:
    """Of the (id, version) claims, those still held; their version moves on (the claim ends)."""
    if not claims:
        return set()
    params = _as_read("h_claims", claims.items())
    return {row["id"] for row in await _HOLD.mappings(conn, params)}


_SET_OUTCOME = BulkStatement(
    update(actions)
    .where(actions.c.id == bindparam("b_id"))
    .values(
        status=bindparam("b_status"),
        reason=bindparam("b_reason"),
        due_at=bindparam("b_due_at"),
        finished_at=bindparam("b_finished_at"),
        max_attempts=bindparam("b_max_attempts"),
        claimed_by=None,
        lease_until=None,
    ),
    ["b_id", "b_status", "b_reason", "b_due_at", "b_finished_at", "b_max_attempts"],
)


async def is_claimed(conn: AsyncConnection, action_id: int, version: int) -> bool:
    """Whether this claim (the action at the version its claim gave it) still holds."""
    query = select(actions.c.id).where(
        actions.c.id == action_id,
        actions.c.version == version,
        actions.c.status == ActionStatus.RUNNING,
    )
    return (await conn.execute(query)).first() is not None


async def set_outcomes(conn: AsyncConnection, rows: Sequence[Mapping[str, Any]]) -> None:
    """Write each held action's final state: {b_id, status, reason, due_at, finished_at,
    max_attempts}."""
    await _SET_OUTCOME.execute_many(conn, rows)


_LIVE_RULES = RowStatement(
    select(rules).where(
        rules.c.id.in_(bindparam("l_ids", expanding=True)),
        rules.c.deleted_at.is_(None),
        rules.c.enabled.is_(True),
    )
)


async def live_rules(conn: AsyncConnection, due: Iterable[DueAction]) -> dict[str, RuleSnapshot]:
    """The live rules, by id, whose version is the one each chained action was planned for."""
    wanted = {(a.rule_id, a.rule_version) for a in due if a.is_chain}
    if not wanted:
        return {}
    found = await _LIVE_RULES.mappings(conn, {"l_ids": sorted({r for r, _ in wanted})})
    return {r["id"]: rule_snapshot(r) for r in found if (r["id"], r["version"]) in wanted}
