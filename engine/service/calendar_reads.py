"""Reading calendars: one, a page, and resolving a rule's calendar names into dates.

Every read is scoped by tenant: another tenant's calendar behaves like a missing one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection

from engine.deps import Deps
from engine.domain.records import Page
from engine.errors import CalendarNotFound, InvalidRule
from engine.recurrence.calendars import Calendar
from engine.service.row_records import decode_cursor, encode_cursor
from engine.store import calendars as calendar_store
from engine.store.calendar_codec import calendar_of

MAX_CALENDAR_PAGE = 200


@dataclass(frozen=True)
class RuleRef:
    """A rule that uses a calendar."""

    id: str
    name: str


@dataclass(frozen=True)
class CalendarRecord:
    """A stored calendar, with the live rules that name it."""

    name: str
    description: str
    excluded: list[date]
    included: list[date]
    version: int
    created_at: datetime
    updated_at: datetime
    rules: list[RuleRef]


def calendar_record(row: Mapping[Any, Any], rules: Sequence[tuple[str, str]]) -> CalendarRecord:
    calendar = calendar_of(row)
    return CalendarRecord(
        name=row["name"],
        description=row["description"],
        excluded=sorted(calendar.excluded),
        included=sorted(calendar.included),
        version=row["version"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        rules=[RuleRef(rule_id, rule_name) for rule_id, rule_name in rules],
    )


async def get_calendar(deps: Deps, tenant_id: str, name: str) -> CalendarRecord:
    async with deps.db.connect() as conn:
        row = await calendar_store.get(conn, tenant_id, name)
        if row is None:
            raise CalendarNotFound(f"no calendar {name!r} for this tenant: check its name")
        return calendar_record(row, await calendar_store.rules_using(conn, tenant_id, name))


async def list_calendars(
    deps: Deps, tenant_id: str, cursor: str | None, limit: int
) -> Page[CalendarRecord]:
    """Calendars in name order; `next_cursor` continues after the page's last name."""
    limit = max(1, min(limit, MAX_CALENDAR_PAGE))
    async with deps.db.connect() as conn:
        rows = await calendar_store.list_page(conn, tenant_id, decode_cursor(cursor), limit + 1)
        page = rows[:limit]
        users = await calendar_store.rules_using_each(conn, tenant_id, [r["name"] for r in page])
        items = [calendar_record(row, users[row["name"]]) for row in page]
    next_cursor = encode_cursor(page[-1]["name"]) if len(rows) > limit else None
    return Page(items, next_cursor)


async def resolve(
    conn: AsyncConnection, tenant_id: str, names: Sequence[str]
) -> tuple[Calendar, ...]:
    """The calendars `names` name, in that order; InvalidRule(field="calendars") naming the
    first that this tenant does not have."""
    if len(set(names)) != len(names):
        raise InvalidRule("calendars", "names a calendar twice", hint="name each calendar once")
    found = await calendar_store.get_many(conn, tenant_id, names)
    missing = [name for name in names if name not in found]
    if missing:
        raise InvalidRule(
            "calendars",
            f"no calendar {missing[0]!r} for this tenant",
            hint="create it with PUT /v1/calendars/{name} or fix the name (GET /v1/calendars)",
        )
    return tuple(calendar_of(found[name]) for name in names)
