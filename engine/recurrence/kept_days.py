"""Kept days per year: the answer to "which days of this year can a schedule run on",
worked out once per *kind* of year and then looked up.

A schedule's day rules keep the same days in every year of one kind: its length, the weekday
of its 1 January and, for week numbers and negative year days, the length of the year before
and after. There are at most 56 kinds, and the 400-year Gregorian cycle holds every one of
them, so each is worked out once (per rule's day parts, shared by every rule with the same
parts) and every later question is a lookup in a prefix count: how many days of a range are
kept, which is the k-th, which is the next.
"""

from __future__ import annotations

import bisect
import calendar
from dataclasses import dataclass
from datetime import date
from functools import lru_cache

#: Years whose kept days are kept at hand (a dict lookup instead of a kind lookup).
_YEARS_KEPT = 64
#: Kept days per (day rules, kind of year), shared by every rule with the same day rules.
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


class KeptDays:
    """Which days a schedule's day rules keep, per year; subclasses decide one kind of year.

    `key` identifies the day rules (equal keys keep equal days); `neighbours` says whether the
    kept days also depend on the length of the year before and after.
    """

    def __init__(self, key: tuple[object, ...], neighbours: tuple[bool, bool]) -> None:
        self._key = key
        self._neighbours = neighbours
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
        """One year of each kind (the 400-year Gregorian cycle holds them all)."""
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
        leap, weekday, before, after = _kind(year)
        weekno, yearday = self._neighbours
        return leap, weekday, weekno and before, yearday and after, year == date.max.year

    def _build(self, year: int) -> tuple[int, ...]:
        """prefix[i] = kept days among day indexes 0..i-1 of `year` (and 7 days after it)."""
        raise NotImplementedError


def prefix_of(kept: list[int]) -> tuple[int, ...]:
    prefix = [0]
    for flag in kept:
        prefix.append(prefix[-1] + flag)
    return tuple(prefix)


@lru_cache(maxsize=1024)
def _kind(year: int) -> tuple[bool, int, bool, bool]:
    return (
        calendar.isleap(year),
        date(year, 1, 1).weekday(),
        calendar.isleap(year - 1),
        calendar.isleap(year + 1),
    )
