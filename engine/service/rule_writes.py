"""Creating and changing rules: validate, write in one transaction, re-plan the pending action.

Each saved version's full definition is appended to the rule's history (`rule_versions`) in
the same transaction, so the history never lacks a version the rule had.

Every change bumps the rule's version (an If-Match stays current across a pause or a resume:
`engine.service.rule_etags`) and finishes its pending actions of the old version in
the same transaction (cancelled, or skipped with reason `paused`), so old code never runs again.
The same transaction keeps the rule's traces true: DST gap traces written ahead for the old
version go, and resuming records the occurrences the pause skipped (see docs/engine.md, "What
leaves a trace").
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from datetime import datetime
from typing import Any

from sqlalchemy.engine import RowMapping
from sqlalchemy.ext.asyncio import AsyncConnection

from engine.deps import Deps
from engine.domain.changes import Change
from engine.domain.due import Planned, RuleSnapshot
from engine.domain.occurrences import (
    gap_traces,
    next_occurrence,
    paused_traces,
    planned,
    rule_schedule,
)
from engine.domain.records import ActionStatus, Rule, RuleSpec, SkipReason
from engine.domain.validation import (
    check_code,
    check_fields,
    check_quotas,
    parse_rule_schedule,
    spec_with,
)
from engine.errors import (
    InvalidRuleSchedule,
    QuotaExceeded,
    RuleIdTaken,
    RuleNotFound,
    StaleVersion,
)
from engine.ops import metrics, tracing
from engine.recurrence import Schedule
from engine.recurrence.calendars import Calendar
from engine.service import rule_etags
from engine.service.calendar_reads import resolve
from engine.service.row_records import rule_from_row
from engine.store import actions as action_store
from engine.store import rule_versions as version_store
from engine.store import rules as rule_store
from engine.store.calendar_codec import rule_copy
from engine.store.rows import rule_columns
from engine.store.snapshots import rule_snapshot
from tenants.ids import new_id
from tenants.quotas import TenantProfile

_SPEC_NAMES = tuple(f.name for f in fields(RuleSpec))
#: Times an unconditional change reads the rule again after losing to a concurrent change.
MAX_RACES = 5


def spec_from_row(row: RowMapping) -> RuleSpec:
    return RuleSpec(**{name: row[name] for name in _SPEC_NAMES})


@dataclass(frozen=True)
class Checked:
    """A rule that passed every check: its schedule and its first occurrence after the check
    (a save plans that one, without evaluating the schedule again)."""

    schedule: Schedule
    first_at: datetime
    calendars: tuple[Calendar, ...]


async def validate(
    deps: Deps,
    spec: RuleSpec,
    created_at: datetime,
    profile: TenantProfile,
    *,
    now: datetime,
    with_code: bool = True,
) -> Checked:
    """Check everything about `spec` against the tenant's `profile`, as of `now`."""
    check_fields(spec)
    check_quotas(spec, profile.quotas)
    async with deps.db.connect() as conn:
        calendars = await resolve(conn, profile.tenant_id, spec.calendars)
    schedule = parse_rule_schedule(spec, created_at, deps.schedule_limits(profile))
    first_at = next_occurrence(schedule.with_calendars(calendars), spec, now)
    if first_at is None:
        field = "calendars" if calendars and next_occurrence(schedule, spec, now) else "schedule"
        raise InvalidRuleSchedule(
            field,
            f"has no occurrence after now within the rule's start/end window and before its "
            f"horizon ({deps.config.horizon_years} years)",
            hint="choose a schedule that occurs in the future, move end_at, or use calendars "
            "that leave some of its dates",
        )
    if with_code:
        await check_code(deps.sandbox, spec.runtime, spec.code, spec.timeout_ms)
    return Checked(schedule.with_calendars(calendars), first_at, calendars)


async def create(deps: Deps, tenant_id: str, spec: RuleSpec, rule_id: str | None = None) -> Rule:
    """Save a new rule and plan its first occurrence; the rule as stored. With `rule_id` (the
    client's), RuleIdTaken when any rule ever had that id."""
    now = deps.clock.now()
    profile = await deps.profile(tenant_id)
    checked = await validate(deps, spec, now, profile, now=now)
    async with deps.write() as conn:
        if await rule_store.count_rules(conn, tenant_id) >= profile.quotas.max_rules:
            raise QuotaExceeded(
                "max_rules",
                f"this tenant already has {profile.quotas.max_rules} rules, its limit: "
                "delete one or ask the operator to raise max_rules",
            )
        if rule_id is not None and await rule_store.is_id_taken(conn, rule_id):
            raise RuleIdTaken(rule_id)
        rule_id = rule_id or new_id("r")
        rule = await rule_store.insert_rule(conn, spec, tenant_id, rule_id, now, checked.calendars)
        await version_store.record(conn, tenant_id, rule.id, rule.version, spec, now)
        plans = _plans(checked.schedule, rule, now, checked.first_at) if spec.enabled else []
        await action_store.insert_planned(conn, plans, now)
        row = await load(conn, tenant_id, rule.id)
    deps.wake(tenant_id, Change.ADDED)
    return rule_from_row(
        row,
        schedule_text=checked.schedule.describe().text,
        next_run_at=plans[-1].due_at if plans else None,
        last_outcome=None,
    )


async def load(conn: AsyncConnection, tenant_id: str, rule_id: str) -> RowMapping:
    row = await rule_store.get_rule(conn, tenant_id, rule_id)
    if row is None:
        raise RuleNotFound.of(rule_id)
    return row


async def change(
    deps: Deps,
    tenant_id: str,
    rule_id: str,
    changes: dict[str, Any],
    expected_version: int | None,
    reason: SkipReason = SkipReason.RULE_CHANGED,
) -> None:
    """Apply `changes` as a new version; pending actions of the old version are finished.

    With `expected_version` the change applies only while no edit came after that version (a
    pause or a resume may have: `engine.service.rule_etags`); the version it writes on is
    checked by the statement that writes, so an edit committed after the caller read the rule
    makes this one fail with StaleVersion and change nothing. Without it, the change applies to
    the version current when it is written. Either way a concurrent change makes it read the
    rule again. Disabling the rule is a pause, whatever `reason` says: its pending occurrence is
    skipped (reason paused). Enabling it resumes it: the occurrences since the pause are
    recorded as skipped (reason paused), and planning starts from now."""
    for _ in range(MAX_RACES):
        async with deps.db.connect() as conn:
            row = await load(conn, tenant_id, rule_id)
        if not rule_etags.is_current(row, expected_version):
            raise StaleVersion(row["version"])
        if await _write_change(deps, row, changes, reason):
            deps.wake(tenant_id, Change.CHANGED)
            return
    async with deps.db.connect() as conn:
        raise StaleVersion((await load(conn, tenant_id, rule_id))["version"])


@dataclass(frozen=True)
class PreparedChange:
    """A change checked against the rule as read, ready to be written in a transaction."""

    spec: RuleSpec
    values: dict[str, Any]
    reason: SkipReason
    is_resume: bool
    now: datetime


async def prepare(
    deps: Deps,
    row: RowMapping,
    changes: dict[str, Any],
    reason: SkipReason,
    profile: TenantProfile,
) -> PreparedChange:
    """Check `changes` on top of the rule as read in `row` (InvalidRule and its kin if they
    do not make a valid rule); what to write."""
    spec = spec_with(spec_from_row(row), changes)
    with_code = "code" in changes or "runtime" in changes
    now = deps.clock.now()
    checked = await validate(deps, spec, row["created_at"], profile, now=now, with_code=with_code)
    values = rule_columns(spec) | {"calendar_dates": rule_copy(checked.calendars)}
    values |= {"updated_at": now}
    is_pause = row["enabled"] and not spec.enabled
    is_resume = spec.enabled and not row["enabled"]
    if rule_etags.is_edit(changes):
        values |= {"edited_version": row["version"] + 1}
    if is_pause or is_resume:
        values |= {"paused_at": now if is_pause else None}
    return PreparedChange(spec, values, SkipReason.PAUSED if is_pause else reason, is_resume, now)


async def _write_change(
    deps: Deps, row: RowMapping, changes: dict[str, Any], reason: SkipReason
) -> bool:
    """Write `changes` on top of the rule as read in `row`, only if it is still that version;
    False when another change came first."""
    prepared = await prepare(deps, row, changes, reason, await deps.profile(row["tenant_id"]))
    async with deps.write() as conn:
        return await write_prepared(conn, deps, row, prepared)


async def write_prepared(
    conn: AsyncConnection, deps: Deps, row: RowMapping, change: PreparedChange
) -> bool:
    """Write `change` in `conn`'s transaction, only if the rule is still the version of `row`:
    the new version recorded in its history, its pending actions of that version finished, its
    traces made true, its next occurrence planned. False (nothing written) when another change
    came first. A calendar edit calls this for each rule using the calendar, in the calendar's
    own transaction (`engine.service.calendar_writes`), so a crash re-plans all or none."""
    tenant_id, rule_id, now = row["tenant_id"], row["id"], change.now
    if not await rule_store.update_rule(conn, tenant_id, rule_id, row["version"], change.values):
        return False
    await version_store.record(conn, tenant_id, rule_id, row["version"] + 1, change.spec, now)
    reason = change.reason
    status = ActionStatus.SKIPPED if reason is SkipReason.PAUSED else ActionStatus.CANCELLED
    finished = await action_store.finish_pending_of_rule(conn, rule_id, status, reason, now)
    metrics.count_skips(reason, finished)
    # Resuming traces the whole pause anew, so its gap traces go too.
    gone_after = row["paused_at"] if change.is_resume else now
    await action_store.delete_gap_traces_after(conn, rule_id, gone_after)
    if change.is_resume:
        await _trace_pause(conn, row, deps, now)
    if change.spec.enabled:
        await _plan_next(conn, rule_snapshot(await load(conn, tenant_id, rule_id)), deps, now)
    return True


async def _trace_pause(
    conn: AsyncConnection, paused: RowMapping, deps: Deps, now: datetime
) -> None:
    """Record the occurrences the rule skipped from its pause until `now`, as it stood then:
    each as skipped (reason paused), except the one the pause finished, and each wall time a
    DST gap removed in that time (reason dst_gap)."""
    paused_at, rule = paused["paused_at"], rule_snapshot(paused)
    schedule = rule_schedule(rule, deps.config.horizon_years)
    traced = await action_store.rule_instants(conn, rule.id, paused_at, now)
    traces = paused_traces(schedule, rule, paused_at, now, traced)
    metrics.count_skips(SkipReason.PAUSED, len(traces))
    traces += gap_traces(schedule, rule, paused_at, now)
    await action_store.insert_planned(conn, traces, now)


async def _plan_next(conn: AsyncConnection, rule: RuleSnapshot, deps: Deps, now: datetime) -> None:
    schedule = rule_schedule(rule, deps.config.horizon_years)
    plans = _plans(schedule, rule, now, next_occurrence(schedule, rule, now))
    await action_store.insert_planned(conn, plans, now)


def _plans(
    schedule: Schedule, rule: RuleSnapshot, now: datetime, found: datetime | None
) -> list[Planned]:
    """The rule's first occurrence after now (`found`; None: it has none left), with a trace
    of each wall time a DST gap removes before it (later ones are written as its chain
    advances): the pending one last."""
    plans = gap_traces(schedule, rule, now, found)
    if found is not None:
        plans.append(replace(planned(rule, found), trace_parent=tracing.current_parent()))
    return plans
