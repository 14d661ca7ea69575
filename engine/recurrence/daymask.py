"""Which days of a year pass an RRULE's date parts, exactly as dateutil decides, counted fast.

A rule's date parts (BYMONTH, BYWEEKNO, BYYEARDAY, BYMONTHDAY, BYDAY) keep the same days in
every year of one *type*: its length, the weekday of its 1 January and, for week numbers and
negative year days, the length of the year before and after. There are at most 56 types, so a
rule's kept days are worked out once per type (with dateutil's own `_iterinfo` masks, so the
filter is dateutil's) and every later question is a lookup in a prefix count: how many days
of a range are kept, which is the k-th, which is the next. The property tests compare the
result with plain dateutil, so an incompatible dateutil fails loudly.
"""

from __future__ import annotations

import bisect
import calendar
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from dateutil import rrule as du

_DATE_PARTS = ("bymonth", "byweekno", "byyearday", "bymonthday", "byweekday")
#: Years whose kept days are kept at hand (a dict lookup instead of a type lookup).
_YEARS_KEPT = 64
#: Kept days per (date parts, kind of year), shared by every rule with the same parts.
_KINDS: dict[tuple[object, ...], tuple[int, ...]] = {}
_KINDS_KEPT = 4096


@dataclass(frozen=True)
class YearDays:
    """The kept days of one year: day index i is 1 January + i; indexes past the year's end are
    the first days of the next year as a WEEKLY period that crosses New Year sees them."""

    first: int
    """The ordinal of 1 January."""
    prefix: tuple[int, ...]
    """prefix[i] = kept days among indexes 0..i-1."""

    def count(self, low: int, high: int) -> int:
        """Kept days with index in [low, high)."""
        return self.prefix[high] - self.prefix[low]

    def nth(self, low: int, k: int) -> int:
        """Index of the k-th (0-based) kept day at or after `low` (caller checks it exists)."""
        return bisect.bisect_left(self.prefix, self.prefix[low] + k + 1) - 1

    def next(self, low: int, high: int) -> int | None:
        """The first kept index in [low, high), or None."""
        return self.nth(low, 0) if self.count(low, high) else None

    def last(self, low: int, high: int) -> int | None:
        """The last kept index in [low, high), or None."""
        kept = self.count(low, high)
        return self.nth(low, kept - 1) if kept else None


class DayFilter:
    """The date parts of one rule (explicit defaults written out) and their kept days per year.

    Holds a dateutil `_iterinfo`, which is mutable: build one per rule, never share between
    threads (schedules are evaluated on one thread each).
    """

    def __init__(self, kwargs: dict[str, Any]) -> None:
        parts = {name: kwargs[name] for name in _DATE_PARTS if kwargs.get(name)}
        self._key = (kwargs["freq"], kwargs["wkst"], *(_frozen(parts.get(n)) for n in _DATE_PARTS))
        self.is_every_day = not parts
        self._freq = kwargs["freq"]
        rule = du.rrule(kwargs["freq"], dtstart=datetime(2000, 1, 1), wkst=kwargs["wkst"], **parts)
        self._rule = rule
        self._info = du._iterinfo(rule)
        self._neighbours = (bool(rule._byweekno), bool(rule._byyearday))
        self._years: dict[int, YearDays] = {}

    def year(self, year: int) -> YearDays:
        found = self._years.get(year)
        if found is not None:
            return found
        key = (self._key, self.year_key(year))
        prefix = _KINDS.get(key)
        if prefix is None:
            if len(_KINDS) > _KINDS_KEPT:
                _KINDS.clear()
            prefix = _KINDS[key] = self._build(year)
        if len(self._years) > _YEARS_KEPT:
            self._years.clear()
        found = self._years[year] = YearDays(date(year, 1, 1).toordinal(), prefix)
        return found

    def every_kind_of_year(self) -> list[YearDays]:
        """One year of each type (the 400-year Gregorian cycle holds them all)."""
        kinds: dict[tuple[object, ...], int] = {}
        for year in range(2001, 2401):
            kinds.setdefault(self.year_key(year), year)
        return [self.year(year) for year in kinds.values()]

    def is_kept(self, ordinal: int) -> bool:
        day = date.fromordinal(ordinal)
        days = self.year(day.year)
        index = ordinal - days.first
        return days.count(index, index + 1) == 1

    def year_key(self, year: int) -> tuple[object, ...]:
        weekno, yearday = self._neighbours
        return (
            calendar.isleap(year),
            date(year, 1, 1).weekday(),
            weekno and calendar.isleap(year - 1),
            yearday and calendar.isleap(year + 1),
            year == date.max.year,
        )

    def _build(self, year: int) -> tuple[int, ...]:
        size = 365 + calendar.isleap(year) + 7
        if self.is_every_day:
            return tuple(range(size + 1))
        kept = [0] * size
        months = range(1, 13) if self._rule._bynweekday and self._freq == du.MONTHLY else (1,)
        for month in months:
            self._info.rebuild(year, month)
            low, high = self._span(month)
            for i in range(low, high):
                kept[i] = self._passes(i)
        self._info.lastyear = None  # the next build must not reuse this year's masks
        prefix = [0]
        for flag in kept:
            prefix.append(prefix[-1] + flag)
        return tuple(prefix)

    def _span(self, month: int) -> tuple[int, int]:
        """Day indexes one rebuild decides: a month's for numbered MONTHLY weekdays, the year
        and its 7 padding days for WEEKLY, the year otherwise."""
        ii = self._info
        if self._rule._bynweekday and self._freq == du.MONTHLY:
            return ii.mrange[month - 1], ii.mrange[month]
        padded = self._freq == du.WEEKLY and ii.yearordinal + ii.yearlen <= date.max.toordinal()
        return 0, ii.yearlen + (7 if padded else 0)

    def _passes(self, i: int) -> int:
        """dateutil's day filter (rrule._iter) for day index i of the current year."""
        r, ii = self._rule, self._info
        yearday = r._byyearday and (
            (i < ii.yearlen and i + 1 not in r._byyearday and -ii.yearlen + i not in r._byyearday)
            or (
                i >= ii.yearlen
                and i + 1 - ii.yearlen not in r._byyearday
                and -ii.nextyearlen + i - ii.yearlen not in r._byyearday
            )
        )
        dropped = (
            (r._bymonth and ii.mmask[i] not in r._bymonth)
            or (r._byweekno and not ii.wnomask[i])
            or (r._byweekday and ii.wdaymask[i] not in r._byweekday)
            or (ii.nwdaymask and not ii.nwdaymask[i])
            or (
                (r._bymonthday or r._bynmonthday)
                and ii.mdaymask[i] not in r._bymonthday
                and ii.nmdaymask[i] not in r._bynmonthday
            )
            or yearday
        )
        return 0 if dropped else 1


def _frozen(values: Any) -> object:
    if values is None:
        return None
    return tuple(sorted(str(v) for v in values))
