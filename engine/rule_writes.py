"""Creating and changing rules: validate, write in one transaction, re-plan the pending action.

Every change bumps the rule's version and finishes its pending actions of the old version in
the same transaction (cancelled, or skipped with reason `paused`), so old code never runs again.
"""

from __future__ import annotations

from dataclasses import fields
from datetime import datetime
from typing import Any

from sqlalchemy.engine import RowMapping
from sqlalchemy.ext.asyncio import AsyncConnection

from engine.deps import Deps
from engine.errors import InvalidRule, QuotaExceeded, RuleNotFound, StaleVersion
from engine.occurrences import next_occurrence, occurrence_row, rule_schedule
from engine.records import RuleSpec, SkipReason
from engine.store import actions as action_store
from engine.store import rules as rule_store
from engine.validation import check_code, check_fields, check_quotas, parse_rule_schedule, spec_with
from tenants.ids import new_id

_SPEC_NAMES = tuple(f.name for f in fields(RuleSpec))


def spec_values(spec: RuleSpec) -> dict[str, Any]:
    values = {name: getattr(spec, name) for name in _SPEC_NAMES}
    for name in ("misfire_policy", "overlap_policy", "dst_gap", "dst_repeat"):
        values[name] = str(values[name])
    return values


def spec_from_row(row: RowMapping) -> RuleSpec:
    return RuleSpec(**{name: row[name] for name in _SPEC_NAMES})


async def validate(
    deps: Deps, tenant_id: str, spec: RuleSpec, anchor: datetime, *, with_code: bool = True
) -> dict[str, Any]:
    """Check everything about `spec`; returns the rule values (with its first occurrence)."""
    check_fields(spec)
    profile = await deps.profile(tenant_id)
    check_quotas(spec, profile.quotas)
    schedule = parse_rule_schedule(spec, anchor, deps.schedule_limits(profile))
    values = spec_values(spec) | {"tenant_id": tenant_id, "created_at": anchor}
    now = deps.clock.now()
    first = next_occurrence(schedule, values, now)
    if first is None:
        raise InvalidRule(
            "schedule",
            "has no occurrence after now within the rule's start/end window",
            hint="choose a schedule that occurs in the future, or move end_at",
        )
    if with_code:
        await check_code(deps.sandbox, spec.runtime, spec.code)
    return values | {"_first": first}


async def create(deps: Deps, tenant_id: str, spec: RuleSpec) -> str:
    now = deps.clock.now()
    values = await validate(deps, tenant_id, spec, now)
    first = values.pop("_first")
    profile = await deps.profile(tenant_id)
    rule_id = new_id("r")
    values |= {"id": rule_id, "version": 1, "created_at": now, "updated_at": now}
    async with deps.write() as conn:
        if await rule_store.count_rules(conn, tenant_id) >= profile.quotas.max_rules:
            raise QuotaExceeded(
                "max_rules",
                f"this tenant already has {profile.quotas.max_rules} rules, its limit: "
                "delete one or ask the operator to raise max_rules",
            )
        await rule_store.insert_rule(conn, values)
        if spec.enabled:
            await action_store.insert_action(conn, occurrence_row(values, first, now))
    deps.wake(tenant_id)
    return rule_id


async def load(conn: AsyncConnection, tenant_id: str, rule_id: str) -> RowMapping:
    row = await rule_store.get_rule(conn, tenant_id, rule_id)
    if row is None:
        raise RuleNotFound(f"no rule {rule_id!r} for this tenant: check the rule id")
    return row


async def change(
    deps: Deps,
    tenant_id: str,
    rule_id: str,
    changes: dict[str, Any],
    expected_version: int | None,
    reason: SkipReason = SkipReason.RULE_CHANGED,
) -> None:
    """Apply `changes` as a new version; pending actions of the old version are finished."""
    async with deps.db.connect() as conn:
        row = await load(conn, tenant_id, rule_id)
    version = row["version"]
    if expected_version is not None and expected_version != version:
        raise StaleVersion(version)
    spec = spec_with(spec_from_row(row), changes)
    with_code = "code" in changes or "runtime" in changes
    anchor = row["created_at"]
    values = await validate(deps, tenant_id, spec, anchor, with_code=with_code)
    values.pop("_first")
    now = deps.clock.now()
    values |= {"updated_at": now}
    values.pop("tenant_id")
    values.pop("created_at")
    async with deps.write() as conn:
        if not await rule_store.update_rule(conn, tenant_id, rule_id, version, values):
            current = await load(conn, tenant_id, rule_id)
            raise StaleVersion(current["version"])
        status = "skipped" if reason is SkipReason.PAUSED else "cancelled"
        await action_store.finish_pending_of_rule(conn, rule_id, status, reason, now)
        if spec.enabled:
            await _plan_next(conn, tenant_id, rule_id, deps, now)
    deps.wake(tenant_id)


async def _plan_next(
    conn: AsyncConnection, tenant_id: str, rule_id: str, deps: Deps, now: datetime
) -> None:
    rule = await load(conn, tenant_id, rule_id)
    found = next_occurrence(rule_schedule(rule, deps.config.horizon_years), rule, now)
    if found is not None:
        await action_store.insert_action(conn, occurrence_row(rule, found, now))


async def delete(deps: Deps, tenant_id: str, rule_id: str) -> None:
    """Soft-delete: history stays, pending actions are cancelled."""
    now = deps.clock.now()
    async with deps.write() as conn:
        row = await load(conn, tenant_id, rule_id)
        await rule_store.update_rule(
            conn, tenant_id, rule_id, row["version"], {"deleted_at": now, "updated_at": now}
        )
        await action_store.finish_pending_of_rule(
            conn, rule_id, "cancelled", SkipReason.RULE_DELETED, now
        )
    deps.wake(tenant_id)
