"""Writing calendars: create or replace one (re-planning every rule that uses it), delete one.

A rule keeps a copy of its calendars' dates (`engine.store.calendar_codec`), so an edit writes,
in the calendar's own transaction, a new version of each rule that names the calendar: its
pending occurrence of the old version is cancelled and the next one planned with the new dates,
as a rule edit does (`engine.service.rule_writes.write_prepared`), each version recorded in
the rule's history. A process killed mid-way leaves the calendar and every rule as before, never
a calendar ahead of its rules. An edit that would leave a rule with no occurrence at all is
refused before anything is written, naming it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date, datetime
from typing import Any

from sqlalchemy.engine import RowMapping
from sqlalchemy.ext.asyncio import AsyncConnection

from engine.deps import Deps
from engine.domain.changes import Change
from engine.domain.occurrences import next_occurrence, rule_schedule
from engine.domain.records import SkipReason
from engine.errors import CalendarInUse, CalendarNotFound, InvalidRule, QuotaExceeded, StaleVersion
from engine.recurrence.calendars import Calendar
from engine.service import rule_writes
from engine.service.calendar_reads import CalendarRecord, get_calendar
from engine.store import calendars as calendar_store
from engine.store.calendar_codec import dates_json, rule_copy
from engine.store.snapshots import rule_snapshot

#: Calendars one tenant may keep.
MAX_CALENDARS = 100


@dataclass(frozen=True)
class CalendarInput:
    """What a tenant writes: the dates are checked and bounded by the API schema."""

    name: str
    description: str
    excluded: list[date]
    included: list[date]

    @property
    def calendar(self) -> Calendar:
        return Calendar(self.name, frozenset(self.excluded), frozenset(self.included))


async def put_calendar(
    deps: Deps, tenant_id: str, given: CalendarInput
) -> tuple[CalendarRecord, bool]:
    """Create or replace calendar `given.name`; (the calendar as stored, whether it is new)."""
    now = deps.clock.now()
    values = {
        "description": given.description,
        "excluded": dates_json(given.excluded),
        "included": dates_json(given.included),
        "updated_at": now,
    }
    async with deps.write() as conn:
        users = await calendar_store.rules_using(conn, tenant_id, given.name)
        rows = [await rule_writes.load(conn, tenant_id, rule_id) for rule_id, _ in users]
        _check_rules_occur(deps, rows, given.calendar)
        is_new = not await calendar_store.update_dates(conn, tenant_id, given.name, values)
        if is_new:
            await _insert(conn, tenant_id, values | {"name": given.name, "created_at": now})
        for row in rows:
            await _replan(conn, deps, row, given.calendar, now)
    deps.wake(tenant_id, Change.CHANGED)
    return await get_calendar(deps, tenant_id, given.name), is_new


async def _insert(conn: AsyncConnection, tenant_id: str, values: dict[str, Any]) -> None:
    if await calendar_store.count(conn, tenant_id) >= MAX_CALENDARS:
        raise QuotaExceeded(
            "max_calendars", f"this tenant already has {MAX_CALENDARS} calendars: delete one first"
        )
    await calendar_store.insert(conn, values | {"tenant_id": tenant_id})


async def _replan(
    conn: AsyncConnection, deps: Deps, row: RowMapping, calendar: Calendar, now: datetime
) -> None:
    """A new version of the rule in `row` with `calendar`'s new dates in its copy; StaleVersion
    (nothing written: the caller's transaction rolls back) when the rule changed meanwhile.

    The version is recorded in the rule's history like any other (its definition unchanged:
    the history holds every version the rule had, decision 114), and makes older ETags stale."""
    copy = [calendar if c.name == calendar.name else c for c in rule_snapshot(row).calendars]
    values = {
        "calendar_dates": rule_copy(copy),
        "updated_at": now,
        "edited_version": row["version"] + 1,
    }
    change = rule_writes.PreparedChange(
        rule_writes.spec_from_row(row), values, SkipReason.RULE_CHANGED, False, now
    )
    if not await rule_writes.write_prepared(conn, deps, row, change):
        raise StaleVersion(row["version"], f"rule {row['id']} changed meanwhile: try again")


def _check_rules_occur(deps: Deps, rows: list[RowMapping], calendar: Calendar) -> None:
    """InvalidRule(field="excluded") naming the first rule `calendar` would leave with no
    occurrence after now."""
    now = deps.clock.now()
    for row in rows:
        rule = rule_snapshot(row)
        swapped = tuple(calendar if c.name == calendar.name else c for c in rule.calendars)
        changed = replace(rule, calendars=swapped)
        schedule = rule_schedule(changed, deps.config.horizon_years)
        if next_occurrence(schedule, changed, now) is None:
            raise InvalidRule(
                "excluded",
                f"rule {rule.id} ({rule.name!r}) would have no occurrence left",
                hint="leave it some dates, or remove the calendar from the rule first",
            )


async def delete_calendar(deps: Deps, tenant_id: str, name: str) -> None:
    """Delete calendar `name`; CalendarInUse naming the rules that still use it."""
    async with deps.write() as conn:
        if await calendar_store.get(conn, tenant_id, name) is None:
            raise CalendarNotFound(f"no calendar {name!r} for this tenant: check its name")
        users = await calendar_store.rules_using(conn, tenant_id, name)
        if users:
            raise CalendarInUse(name, users)
        await calendar_store.remove(conn, tenant_id, name)
