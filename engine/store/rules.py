"""Statements on `rules`: every read is scoped by tenant, and deleted rules are invisible."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Select, func, select, update
from sqlalchemy.engine import RowMapping
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from engine.domain.due import RuleSnapshot
from engine.domain.records import ActionStatus, RuleSpec
from engine.domain.rule_filters import RuleFilter
from engine.errors import RuleIdTaken
from engine.recurrence.calendars import Calendar
from engine.store.rows import rule_row
from engine.store.rule_filters import latest_outcome, rule_conditions
from engine.store.snapshots import rule_snapshot
from engine.store.tables import actions, rules

#: The due time of the rule's earliest pending action, NULL if it has none: one seek of
#: `ix_actions_rule_status_due` per rule.
_next_run_at = (
    select(func.min(actions.c.due_at))
    .where(actions.c.rule_id == rules.c.id, actions.c.status == ActionStatus.PENDING)
    .scalar_subquery()
)


def _visible(tenant_id: str) -> Any:
    return (rules.c.tenant_id == tenant_id) & rules.c.deleted_at.is_(None)


def _shown() -> Select[Any]:
    """A rule's row with what a list or a get shows beside it, `next_run_at` and
    `last_outcome`, read by the statement that reads the row: a statement costs a request more
    CPU than the two index seeks per rule that it takes."""
    return select(rules, _next_run_at.label("next_run_at"), latest_outcome.label("last_outcome"))


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


async def get_shown_rule(conn: AsyncConnection, tenant_id: str, rule_id: str) -> RowMapping | None:
    """The rule's row with `next_run_at` and `last_outcome` (as `list_rules` gives them)."""
    query = _shown().where(_visible(tenant_id), rules.c.id == rule_id)
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
    """The rules `selection` means, in id order after `after_id`, each row with `next_run_at`
    and `last_outcome`."""
    query = _shown().where(_visible(tenant_id), rule_conditions(selection))
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
