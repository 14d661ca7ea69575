"""The blocks of a YEARLY, MONTHLY, WEEKLY or DAILY rule: its periods, as dateutil walks them.

Period k starts INTERVAL periods after period k-1 (a year, a month, a WKST-aligned week, a
day); period 0 is DTSTART's, and a WEEKLY period 0 runs only from DTSTART's day to the end of
its week, as in dateutil (BYSETPOS can tell). A period's candidates are its kept days (see
`daymask`) times the rule's times of day, in that order; BYSETPOS keeps some of them by
position. Every question is answered by arithmetic on those counts: no candidate list is built.
"""

from __future__ import annotations

import calendar
from collections.abc import Iterator, Sequence
from datetime import date, datetime, time
from itertools import accumulate, pairwise
from typing import Any

from dateutil import rrule as du

from engine.recurrence.daymask import DayFilter
from engine.recurrence.kept_days import KeptDays, YearDays
from engine.recurrence.timeset import TimeSet, clock_time
from engine.recurrence.walker import LAST_YEAR, first_nonempty, picked, positions

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


class CoarseBlocks:
    """Periods of a daily-or-coarser rule, `kwargs` with every default written out."""

    def __init__(
        self, kwargs: dict[str, Any], dtstart: datetime, days: KeptDays | None = None
    ) -> None:
        self.dtstart = dtstart
        self.freq: int = kwargs["freq"]
        self.days = days or DayFilter(kwargs)
        self.times = TimeSet.of(kwargs["byhour"], kwargs["byminute"], kwargs["bysecond"])
        self.setpos: tuple[int, ...] | None = kwargs.get("bysetpos")
        start = dtstart.date().toordinal()
        week = start - (dtstart.weekday() - kwargs["wkst"]) % 7
        origin = {
            du.YEARLY: (dtstart.year, 1),
            du.MONTHLY: (dtstart.year * 12 + dtstart.month - 1, 1),
            du.WEEKLY: (week, 7),
            du.DAILY: (start, 1),
        }[self.freq]
        self._origin, self._step = origin[0], origin[1] * kwargs["interval"]
        self._skip = self._skipped_in_first()

    def can_occur(self) -> bool:
        """False when no period of any kind of year can hold an occurrence: the day parts
        keep no day, or BYSETPOS asks for more candidates than a period can have."""
        widest = max(self._widest(days) for days in self.days.every_kind_of_year())
        return picked(widest * len(self.times), self.setpos) > 0

    def _widest(self, days: YearDays) -> int:
        """The most kept days one period of this kind of year holds."""
        length = len(days.prefix) - 8
        if self.freq == du.YEARLY:
            return days.count(0, length)
        if self.freq == du.DAILY:
            return min(1, days.count(0, length))
        if self.freq == du.WEEKLY:
            return max(days.count(i, i + 7) for i in range(length))
        year = 2000 if length == 366 else 2001
        starts = accumulate((calendar.monthrange(year, m)[1] for m in range(1, 13)), initial=0)
        return max(days.count(a, b) for a, b in pairwise(starts))

    def block_at(self, wall: datetime) -> int:
        return max(0, (self._unit(wall.date()) - self._origin) // self._step)

    def year_of(self, block: int) -> int:
        first = self._span(block)[0]
        return date.fromordinal(first).year if first < _END_ORDINAL else LAST_YEAR + 1

    def first_in_year(self, year: int) -> int | None:
        if year < self.dtstart.year or year > LAST_YEAR:
            return None
        if year == self.dtstart.year:
            return 0
        block = max(0, -(-(self._year_unit(year) - self._origin) // self._step))
        return block if self._start_unit(block) < self._year_unit(year + 1) else None

    def last_in_year(self, year: int) -> int | None:
        first = self.first_in_year(year)
        if first is None:
            return None
        return max(first, (self._year_unit(year + 1) - 1 - self._origin) // self._step)

    def size(self, block: int) -> int:
        days, low, high = self._kept(block)
        count = picked(days.count(low, high) * len(self.times), self.setpos)
        return count - (self._skip if block == 0 else 0)

    def first_nonempty(self, first: int, last: int) -> int | None:
        """A DAILY rule's next kept day comes from the day mask; other periods are looked at
        one by one (at most 53 in a year)."""
        if self.freq != du.DAILY or not picked(len(self.times), self.setpos):
            return first_nonempty(self, first, last)
        block = first
        while block <= last:
            days, low, _ = self._kept(block)
            end = len(days.prefix) - 8
            index = days.next(low, end)
            if index is None:
                return None
            block += -(-(index - low) // self._step)
            if block <= last and self.size(block):
                return block
            if index == low:
                block += 1
        return None

    def year_state(self, year: int) -> tuple[int, int]:
        return year_state(year, (self._origin - self._year_unit(year)) % self._step)

    def year_size(self, year: int) -> int:
        first, last = self.first_in_year(year), self.last_in_year(year)
        if first is None or last is None:
            return 0
        days = self.days.year(year)
        per_day = len(self.times)
        if self.freq == du.DAILY:
            offset, length = self._span(first)[0] - days.first, jan1(year + 1) - days.first
            step = self._step
            kept = (
                days.count(offset, length)
                if step == 1
                else sum(days.count(i, i + 1) for i in range(offset, length, step))
            )
            return kept * picked(per_day, self.setpos)
        spans = (self._span(block) for block in range(first, last + 1))
        return sum(
            picked(days.count(a - days.first, b - days.first) * per_day, self.setpos)
            for a, b in spans
        )

    def wall_at(self, block: int, index: int) -> datetime:
        offset = self._skip if block == 0 else 0
        days, low, _ = self._kept(block)
        return self._wall_of(days, low, self._positions(block)[index + offset])

    def walls(self, block: int, low: datetime | None) -> Iterator[datetime]:
        start = self.count_before(block, low) if low is not None else 0
        offset = self._skip if block == 0 else 0
        days, first, _ = self._kept(block)
        kept = self._positions(block)
        for index in range(start + offset, len(kept)):
            yield self._wall_of(days, first, kept[index])

    def count_before(self, block: int, wall: datetime) -> int:
        """Walls of `block` (at or after DTSTART) earlier than `wall`."""
        offset = self._skip if block == 0 else 0
        return max(0, self._candidates_before(block, wall) - offset)

    def _candidates_before(self, block: int, wall: datetime) -> int:
        kept = self._positions(block)
        if self.setpos:
            days, low, _ = self._kept(block)
            return sum(1 for p in kept if self._wall_of(days, low, p) < wall)
        days, low, high = self._kept(block)
        index = wall.toordinal() - days.first
        if index < low:
            return 0
        if index >= high:
            return len(kept)
        before = days.count(low, index) * len(self.times)
        if days.count(index, index + 1):
            before += self.times.index_at_or_after(_seconds(wall.time()))
        return before

    def _skipped_in_first(self) -> int:
        return self._candidates_before(0, self.dtstart)

    def _wall_of(self, days: YearDays, low: int, position: int) -> datetime:
        day, moment = divmod(position, len(self.times))
        when = date.fromordinal(days.first + days.nth(low, day))
        return datetime.combine(when, clock_time(self.times.at(moment)))

    def _positions(self, block: int) -> Sequence[int]:
        days, low, high = self._kept(block)
        return positions(days.count(low, high) * len(self.times), self.setpos)

    def _kept(self, block: int) -> tuple[YearDays, int, int]:
        """The year of the period's first day and the period's day indexes in it."""
        first, end = self._span(block)
        days = self.days.year(date.fromordinal(first).year)
        return days, first - days.first, end - days.first

    def _span(self, block: int) -> tuple[int, int]:
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
        return self._origin + block * self._step

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


def _seconds(moment: time) -> int:
    return moment.hour * 3600 + moment.minute * 60 + moment.second
