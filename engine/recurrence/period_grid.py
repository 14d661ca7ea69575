"""Where the periods of a daily-or-coarser RRULE lie: dateutil's grid, in whole days.

Period k starts INTERVAL periods after period k-1 (a year, a month, a WKST-aligned week, a
day), counted in *units* (years, months, or day ordinals); period 0 is DTSTART's, and a WEEKLY
period 0 runs only from DTSTART's day to the end of its week, as in dateutil (BYSETPOS can
tell).
"""

from __future__ import annotations

from datetime import date, datetime

from dateutil import rrule as du

from engine.recurrence.walker import LAST_YEAR

_END_ORDINAL = date.max.toordinal() + 1


def jan1(year: int) -> int:
    """The ordinal of 1 January of `year` (year 10000: one past the calendar's end)."""
    before = year - 1
    return 365 * before + before // 4 - before // 100 + before // 400 + 1


def year_state(year: int, phase: int) -> tuple[int, int]:
    """What decides a year's occurrences once the rule is past its first year: the year's
    place in the 400-year Gregorian cycle (its length, weekdays and neighbours) and where the
    rule's INTERVAL grid stands at its start. The last year is a state of its own."""
    return (year % 400 if year < LAST_YEAR else -1), phase


class PeriodGrid:
    """The periods of one rule: `freq`, `interval`, `wkst` and DTSTART."""

    def __init__(self, freq: int, interval: int, wkst: int, dtstart: datetime) -> None:
        self.freq = freq
        self.dtstart = dtstart
        start = dtstart.date().toordinal()
        week = start - (dtstart.weekday() - wkst) % 7
        origin, step = {
            du.YEARLY: (dtstart.year, 1),
            du.MONTHLY: (dtstart.year * 12 + dtstart.month - 1, 1),
            du.WEEKLY: (week, 7),
            du.DAILY: (start, 1),
        }[freq]
        self.origin, self.step = origin, step * interval

    def block_at(self, wall: datetime) -> int:
        """The period holding `wall` (0 for any wall before DTSTART's period)."""
        return max(0, (self._unit(wall.date()) - self.origin) // self.step)

    def year_of(self, block: int) -> int:
        first = self.span(block)[0]
        return date.fromordinal(first).year if first < _END_ORDINAL else LAST_YEAR + 1

    def first_in_year(self, year: int) -> int | None:
        if year < self.dtstart.year or year > LAST_YEAR:
            return None
        if year == self.dtstart.year:
            return 0
        block = max(0, -(-(self._year_unit(year) - self.origin) // self.step))
        return block if self._start_unit(block) < self._year_unit(year + 1) else None

    def last_in_year(self, year: int) -> int | None:
        first = self.first_in_year(year)
        if first is None:
            return None
        return max(first, (self._year_unit(year + 1) - 1 - self.origin) // self.step)

    def year_state(self, year: int) -> tuple[int, int]:
        return year_state(year, (self.origin - self._year_unit(year)) % self.step)

    def span(self, block: int) -> tuple[int, int]:
        """The ordinals [first, end) of the period's days."""
        unit = self._start_unit(block)
        if self.freq == du.YEARLY:
            return jan1(unit), jan1(unit + 1)
        if self.freq == du.MONTHLY:
            return _month_start(unit), _month_start(unit + 1)
        if self.freq == du.WEEKLY:
            return (self.dtstart.toordinal() if block == 0 else unit), unit + 7
        return unit, unit + 1

    def _start_unit(self, block: int) -> int:
        return self.origin + block * self.step

    def _unit(self, day: date) -> int:
        if self.freq == du.YEARLY:
            return day.year
        if self.freq == du.MONTHLY:
            return day.year * 12 + day.month - 1
        return day.toordinal()

    def _year_unit(self, year: int) -> int:
        if self.freq == du.YEARLY:
            return year
        if self.freq == du.MONTHLY:
            return year * 12
        return jan1(year)


def _month_start(month_index: int) -> int:
    year, month = divmod(month_index, 12)
    return date(year, month + 1, 1).toordinal() if year <= LAST_YEAR else _END_ORDINAL
