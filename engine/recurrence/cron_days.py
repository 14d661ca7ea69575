"""Which days a cron expression's day fields keep, per year, as croniter decides them.

Day of month: numbers, `L` (the last day) and `15W` (the weekday nearest the 15th, within its
month, the day clamped to the month's length). Day of week: numbers (0 and 7 are Sunday) and
`FRI#2` (the second Friday of the month). Month: numbers. When neither day field starts with
`*` or `?`, a day matches either (Vixie cron's OR); otherwise it must match both (so `*/2` with
`FRI` is the Fridays on odd days, as in Vixie cron). The kept days of a kind of year are
worked out once (see `kept_days`), so a cron schedule is walked like an RRULE; the property
tests compare it with croniter.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from typing import Any

from croniter import croniter

from engine.recurrence.kept_days import KeptDays, prefix_of


@dataclass(frozen=True)
class DayFields:
    """The day fields of a cron expression, expanded (None: `*`, every day); `either`: a day
    matches either field (both restricted), else both."""

    monthdays: frozenset[int] | None
    last_day: bool
    nearest: int | None
    weekdays: frozenset[int] | None
    nth: frozenset[tuple[int, int]]
    months: frozenset[int]
    either: bool


@lru_cache(maxsize=1024)
def expand(expression: str) -> tuple[list[list[Any]], dict[int, set[int]]]:
    """croniter's expansion of the five fields (values, or ['*']) and the `#` weekdays."""
    return croniter.expand(expression)  # type: ignore[no-any-return]


def day_fields(expression: str) -> DayFields:
    fields = expression.split()
    (_, _, days, months, weekdays), nth = expand(expression)
    nearest = re.fullmatch(r"(\d{1,2})W", fields[2].upper())
    free = ("*", "?")
    numbers = frozenset(int(d) for d in days if d not in ("*", "l"))
    return DayFields(
        monthdays=None if days == ["*"] else numbers,
        last_day="l" in days,
        nearest=int(nearest[1]) if nearest else None,
        weekdays=None if weekdays == ["*"] else frozenset(int(d) % 7 for d in weekdays),
        nth=frozenset((int(d) % 7, n) for d, ns in nth.items() for n in ns),
        months=frozenset(range(1, 13)) if months == ["*"] else frozenset(map(int, months)),
        either=not (fields[2].startswith(free) or fields[4].startswith(free)),
    )


class CronDays(KeptDays):
    """The kept days of one cron expression's day fields."""

    def __init__(self, fields: DayFields) -> None:
        super().__init__(("cron", fields), (False, False))
        self.fields = fields

    def _build(self, year: int) -> tuple[int, ...]:
        kept = []
        for month in range(1, 13):
            length = calendar.monthrange(year, month)[1]
            if month not in self.fields.months:
                kept += [0] * length
                continue
            kept += [int(self._keeps(date(year, month, day))) for day in range(1, length + 1)]
        return prefix_of(kept + [0] * 7)

    def _keeps(self, day: date) -> bool:
        f = self.fields
        by_month = f.monthdays is None or self._month_day(day)
        by_week = f.weekdays is None or self._week_day(day)
        return (by_month or by_week) if f.either else (by_month and by_week)

    def _month_day(self, day: date) -> bool:
        f = self.fields
        length = calendar.monthrange(day.year, day.month)[1]
        if f.nearest is not None:
            return day.day == nearest_weekday(day.year, day.month, f.nearest)
        return day.day in f.monthdays or (f.last_day and day.day == length)  # type: ignore[operator]

    def _week_day(self, day: date) -> bool:
        f = self.fields
        weekday = (day.weekday() + 1) % 7
        if f.nth:
            return (weekday, (day.day - 1) // 7 + 1) in f.nth or (
                weekday in f.weekdays and all(d != weekday for d, _ in f.nth)  # type: ignore[operator]
            )
        return weekday in f.weekdays  # type: ignore[operator]


def nearest_weekday(year: int, month: int, day: int) -> int:
    """croniter's `W`: the weekday nearest `day` (clamped to the month) without leaving it."""
    length = calendar.monthrange(year, month)[1]
    day = min(day, length)
    weekday = date(year, month, day).weekday()
    if weekday == 5:
        return day - 1 if day > 1 else day + 2
    if weekday == 6:
        return day + 1 if day < length else day - 2
    return day
