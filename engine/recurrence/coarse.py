"""The blocks of a YEARLY, MONTHLY, WEEKLY or DAILY rule: its periods, as dateutil walks them.

Where the periods lie is `period_grid`'s. A period's candidates are its kept days (see
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
from engine.recurrence.period_grid import PeriodGrid, jan1
from engine.recurrence.timeset import TimeSet, clock_time
from engine.recurrence.walker import first_nonempty, picked, positions


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
        self.grid = PeriodGrid(self.freq, kwargs["interval"], kwargs["wkst"], dtstart)
        self.block_at = self.grid.block_at
        self.year_of = self.grid.year_of
        self.first_in_year = self.grid.first_in_year
        self.last_in_year = self.grid.last_in_year
        self.year_state = self.grid.year_state
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
            block += -(-(index - low) // self.grid.step)
            if block <= last and self.size(block):
                return block
            if index == low:
                block += 1
        return None

    def year_size(self, year: int) -> int:
        first, last = self.first_in_year(year), self.last_in_year(year)
        if first is None or last is None:
            return 0
        days = self.days.year(year)
        per_day = len(self.times)
        if self.freq == du.DAILY:
            offset, length = self.grid.span(first)[0] - days.first, jan1(year + 1) - days.first
            step = self.grid.step
            kept = (
                days.count(offset, length)
                if step == 1
                else sum(days.count(i, i + 1) for i in range(offset, length, step))
            )
            return kept * picked(per_day, self.setpos)
        spans = (self.grid.span(block) for block in range(first, last + 1))
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
        first, end = self.grid.span(block)
        days = self.days.year(date.fromordinal(first).year)
        return days, first - days.first, end - days.first


def _seconds(moment: time) -> int:
    return moment.hour * 3600 + moment.minute * 60 + moment.second
