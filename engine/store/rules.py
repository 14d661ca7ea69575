"""Statements on `rules`: every read is scoped by tenant, and deleted rules are invisible."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.engine import RowMapping
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from engine.domain.due import RuleSnapshot
from engine.domain.records import ActionStatus, RuleSpec
from engine.domain.rule_filters import RuleFilter
from engine.errors import RuleIdTaken
from engine.recurrence.calendars import Calendar
from engine.store.rows import rule_row
from engine.store.rule_filters import rule_conditions
from engine.store.snapshots import rule_snapshot
from engine.store.tables import actions, rules, runs


def _visible(tenant_id: str) -> Any:
    return (rules.c.tenant_id == tenant_id) & rules.c.deleted_at.is_(None)


async def insert_rule(
    conn: AsyncConnection,
    spec: RuleSpec,
    tenant_id: str,
    rule_id: str,
    now: datetime,
    calendars: Sequence[Calendar] = (),
) -> RuleSnapshot:
    """Insert a new rule (with its copy of `calendars`); its snapshot, as written. RuleIdTaken
    when a concurrent insert of the same id won (PostgreSQL's writers do not wait for each
    other's checks)."""
    row = rule_row(spec, tenant_id, rule_id, now, calendars)
    try:
        await conn.execute(rules.insert().values(**row))
    except IntegrityError as exc:
        raise RuleIdTaken(rule_id) from exc
    return rule_snapshot(row)


async def get_rule(conn: AsyncConnection, tenant_id: str, rule_id: str) -> RowMapping | None:
    query = select(rules).where(_visible(tenant_id), rules.c.id == rule_id)
    return (await conn.execute(query)).mappings().first()


async def count_rules(conn: AsyncConnection, tenant_id: str) -> int:
    query = select(func.count()).select_from(rules).where(_visible(tenant_id))
    return int((await conn.execute(query)).scalar_one())


async def list_rules(
    conn: AsyncConnection,
    tenant_id: str,
    *,
    after_id: str | None,
    limit: int,
    selection: RuleFilter,
) -> list[RowMapping]:
    """The rules `selection` means, in id order after `after_id`."""
    query = select(rules).where(_visible(tenant_id), rule_conditions(selection))
    if after_id is not None:
        query = query.where(rules.c.id > after_id)
    return list((await conn.execute(query.order_by(rules.c.id).limit(limit))).mappings())


async def selected_rules(
    conn: AsyncConnection, tenant_id: str, selection: RuleFilter
) -> list[RowMapping]:
    """Every rule `selection` means, in id order (a bulk operation's set: the tenant's
    `max_rules` quota bounds it)."""
    query = select(rules).where(_visible(tenant_id), rule_conditions(selection))
    return list((await conn.execute(query.order_by(rules.c.id))).mappings())


async def is_id_taken(conn: AsyncConnection, rule_id: str) -> bool:
    """Whether any rule, of any tenant, deleted or not, has this id (ids are one namespace)."""
    query = select(func.count()).select_from(rules).where(rules.c.id == rule_id)
    return int((await conn.execute(query)).scalar_one()) > 0


async def update_rule(
    conn: AsyncConnection,
    tenant_id: str,
    rule_id: str,
    version: int | None,
    values: Mapping[str, Any],
) -> bool:
    """Write `values` and bump the version, only if the rule is visible and (unless `version`
    is None) still at `version`: the check and the write are one statement, so no change
    committed in between can be overwritten."""
    query = update(rules).where(_visible(tenant_id), rules.c.id == rule_id)
    if version is not None:
        query = query.where(rules.c.version == version)
    result = await conn.execute(query.values(**values, version=rules.c.version + 1))
    return result.rowcount == 1


async def next_run_at(conn: AsyncConnection, rule_ids: Sequence[str]) -> dict[str, datetime]:
    """The due time of each rule's earliest pending action."""
    if not rule_ids:
        return {}
    query = (
        select(actions.c.rule_id, func.min(actions.c.due_at))
        .where(actions.c.rule_id.in_(rule_ids), actions.c.status == ActionStatus.PENDING)
        .group_by(actions.c.rule_id)
    )
    return {rule_id: due_at for rule_id, due_at in await conn.execute(query)}


async def last_outcomes(conn: AsyncConnection, rule_ids: Sequence[str]) -> dict[str, str]:
    """The outcome of each rule's latest run."""
    if not rule_ids:
        return {}
    latest = (
        select(func.max(runs.c.id)).where(runs.c.rule_id.in_(rule_ids)).group_by(runs.c.rule_id)
    )
    query = select(runs.c.rule_id, runs.c.outcome).where(runs.c.id.in_(latest))
    return {rule_id: outcome for rule_id, outcome in await conn.execute(query)}
