"""The blocks of an HOURLY, MINUTELY or SECONDLY rule: its days, each with its grid's units.

The rule's grid is one unit (an hour, a minute, a second) every INTERVAL units from DTSTART's,
across days. A unit runs when its day passes the date parts (see `daymask`) and it is allowed
by BYHOUR/BYMINUTE/BYSECOND (see `units`); it then yields its candidates (the minutes and
seconds of an hour for HOURLY, the seconds of a minute for MINUTELY), of which BYSETPOS keeps
some. Finding the next occurrence is arithmetic on the unit numbers: it costs the same for a
SECONDLY rule as for an `every 17s` interval, whatever the length of the day.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, datetime, timedelta
from functools import lru_cache
from math import gcd
from typing import Any

from dateutil import rrule as du

from engine.recurrence.daymask import DayFilter
from engine.recurrence.period_grid import jan1, year_state
from engine.recurrence.units import Level, UnitGrid
from engine.recurrence.walker import LAST_YEAR, positions

_UNIT_S = {du.HOURLY: 3600, du.MINUTELY: 60, du.SECONDLY: 1}
_LAST_ORDINAL = date.max.toordinal()
#: Cycles of day residues up to this long are counted per place; longer ones day by day.
_CYCLE_COUNTED = 366


class SubDailyBlocks:
    """Days of a sub-daily rule, `kwargs` with every default written out."""

    def __init__(self, kwargs: dict[str, Any], dtstart: datetime) -> None:
        self.dtstart = dtstart
        freq = kwargs["freq"]
        self.unit_s = _UNIT_S[freq]
        self.days = DayFilter(kwargs)
        self.grid = UnitGrid(_levels(freq, kwargs), kwargs["interval"])
        self.offsets = _offsets(freq, kwargs)
        self._per_day = self.grid.units
        self._origin = self._unit_number(dtstart)
        self._first_day = dtstart.toordinal()
        self._skip = 0
        self._skip = self.count_before(self._first_day, dtstart)

    def can_occur(self) -> bool:
        """False when no day is ever kept, no unit is allowed, or BYSETPOS keeps nothing."""
        kinds = self.days.every_kind_of_year()
        return bool(self.offsets) and any(days.count(0, len(days.prefix) - 8) for days in kinds)

    def block_at(self, wall: datetime) -> int:
        return max(self._first_day, wall.toordinal())

    def year_of(self, block: int) -> int:
        return date.fromordinal(block).year if block <= _LAST_ORDINAL else LAST_YEAR + 1

    def first_in_year(self, year: int) -> int | None:
        if year < self.dtstart.year or year > LAST_YEAR:
            return None
        return max(jan1(year), self._first_day)

    def last_in_year(self, year: int) -> int | None:
        return None if self.first_in_year(year) is None else jan1(year + 1) - 1

    def size(self, block: int) -> int:
        if not self.days.is_kept(block):
            return 0
        total = self.grid.per_day(self._residue(block)) * len(self.offsets)
        return total - (self._skip if block == self._first_day else 0)

    def first_nonempty(self, first: int, last: int) -> int | None:
        """The next kept day (from the day mask) on which the grid hits an allowed unit."""
        day = first
        while day <= last:
            days = self.days.year(date.fromordinal(day).year)
            index = days.next(day - days.first, last + 1 - days.first)
            if index is None:
                return None
            day = days.first + index
            if self.size(day):
                return day
            day += 1
        return None

    def year_state(self, year: int) -> tuple[int, int]:
        return year_state(year, self._residue(jan1(year)))

    def year_size(self, year: int) -> int:
        first = self.first_in_year(year)
        if first is None or first != jan1(year):
            return 0 if first is None else sum(self.size(b) for b in range(first, jan1(year + 1)))
        kept = self.days.year(year).count(0, jan1(year + 1) - first)
        return self._sum_year(first, kept)

    def wall_at(self, block: int, index: int) -> datetime:
        if block == self._first_day:
            index += self._skip
        unit, offset = divmod(index, len(self.offsets))
        x = self.grid.kth(unit, self._residue(block))
        return self._wall(block, x, self.offsets[offset])

    def count_before(self, block: int, wall: datetime) -> int:
        """Walls of the day `block` (at or after DTSTART) earlier than `wall`."""
        if wall.toordinal() != block:
            return 0 if wall.toordinal() < block else self.size(block)
        residue = self._residue(block)
        x, offset = divmod(self._second_of_day(wall), self.unit_s)
        before = self.grid.count(0, x, residue) * len(self.offsets)
        if self.grid.first(x, residue) == x:
            before += sum(1 for o in self.offsets if o < offset)
        skip = self._skip if block == self._first_day else 0
        return max(0, before - skip) if self.days.is_kept(block) else 0

    def walls(self, block: int, low: datetime | None) -> Iterator[datetime]:
        """The day's walls at or after `low` (and DTSTART), ascending, unit after unit."""
        if not self.days.is_kept(block):
            return
        low = max(low or self.dtstart, self.dtstart)
        x, offset = (
            (0, 0) if low.toordinal() < block else divmod(self._second_of_day(low), self.unit_s)
        )
        residue = self._residue(block)
        while (found := self.grid.first(x, residue)) is not None:
            for o in self.offsets:
                if found > x or o >= offset:
                    yield self._wall(block, found, o)
            x, offset = found + 1, 0

    def _sum_year(self, first: int, kept_days: int) -> int:
        """Occurrences of a whole year from 1 January (`first`). A day's residue steps by the
        day's units modulo n, so it repeats every `cycle` days: the kept days are counted per
        place in that cycle (once per kind of year), not one by one."""
        per_unit, n = len(self.offsets), self.grid.n
        step = self._per_day % n
        start = self._residue(first)
        if step == 0:
            return kept_days * self.grid.per_day(start) * per_unit
        cycle = n // gcd(n, step)
        days = self.days.year(date.fromordinal(first).year)
        if cycle > _CYCLE_COUNTED:
            places = [(i, 1) for i in range(len(days.prefix) - 8) if days.count(i, i + 1)]
        else:
            places = list(enumerate(_per_place(days.prefix, cycle)))
        residues = ((start - place * step) % n for place, _ in places)
        return per_unit * sum(
            kept * self.grid.per_day(r) for (_, kept), r in zip(places, residues, strict=True)
        )

    def _residue(self, block: int) -> int:
        """The r for which the grid hits the day's units x = r (mod n)."""
        return (self._origin - block * self._per_day) % self.grid.n

    def _unit_number(self, wall: datetime) -> int:
        return wall.toordinal() * self._per_day + self._second_of_day(wall) // self.unit_s

    def _wall(self, block: int, unit: int, offset: int) -> datetime:
        start = datetime.fromordinal(block)
        return start + timedelta(seconds=unit * self.unit_s + offset)

    @staticmethod
    def _second_of_day(wall: datetime) -> int:
        return wall.hour * 3600 + wall.minute * 60 + wall.second


@lru_cache(maxsize=1024)
def _per_place(prefix: tuple[int, ...], cycle: int) -> list[int]:
    """Kept days of a year (its prefix counts) at each place of a `cycle`-day cycle."""
    counts = [0] * cycle
    for index in range(len(prefix) - 8):
        counts[index % cycle] += prefix[index + 1] - prefix[index]
    return counts


def _levels(freq: int, kwargs: dict[str, Any]) -> tuple[Level, ...]:
    """HOURLY: hours; MINUTELY: hours x minutes; SECONDLY: hours x minutes x seconds."""
    hours = Level(_sorted(kwargs.get("byhour"), 24), 24, 1)
    if freq == du.HOURLY:
        return (hours,)
    minutes = Level(_sorted(kwargs.get("byminute"), 60), 60, 1)
    if freq == du.MINUTELY:
        return (Level(hours.values, 24, 60), minutes)
    seconds = Level(_sorted(kwargs.get("bysecond"), 60), 60, 1)
    return (Level(hours.values, 24, 3600), Level(minutes.values, 60, 60), seconds)


def _offsets(freq: int, kwargs: dict[str, Any]) -> tuple[int, ...]:
    """Seconds into a unit of its candidates, after BYSETPOS (which picks among them)."""
    if freq == du.HOURLY:
        within = sorted(m * 60 + s for m in kwargs["byminute"] for s in kwargs["bysecond"])
    elif freq == du.MINUTELY:
        within = sorted(kwargs["bysecond"])
    else:
        within = [0]
    within = sorted(set(within))
    return tuple(within[i] for i in positions(len(within), kwargs.get("bysetpos")))


def _sorted(values: object, size: int) -> tuple[int, ...]:
    return tuple(sorted(set(values))) if values else tuple(range(size))  # type: ignore[call-overload]
