"""Counting an RRULE's occurrences period by period without generating them.

dateutil only notices that a rule never matches by walking to year 9999 (seconds of CPU), and
only knows where COUNT ends by generating every occurrence. Both questions are answered here by
looking at each period's *day set* (dateutil's own `_iterinfo` masks, so the filter is exactly
dateutil's) and multiplying by the number of times per day; a 10-year horizon is at most ~3 700
periods (sub-daily rules are scanned day by day, with the INTERVAL alignment done by residues).

This reads dateutil internals (`_iterinfo`, `_byweekday`, ...); the property tests compare the
results with plain dateutil evaluation so an incompatible dateutil fails loudly.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Iterable, Iterator
from datetime import date, datetime, timedelta
from functools import lru_cache
from itertools import product

from dateutil import rrule as du

from engine.recurrence.grid import grid_at_or_after, period_index, period_start

_UNITS_PER_DAY = {du.HOURLY: 24, du.MINUTELY: 1440, du.SECONDLY: 86400}


def kept_days(rule: du.rrule, ii: du._iterinfo, dayset: list[int | None]) -> int:
    """How many days of a period's day set pass the rule's date filters (dateutil's filter)."""
    r = rule
    kept = 0
    for i in dayset:
        if i is None:
            continue
        if (
            (r._bymonth and ii.mmask[i] not in r._bymonth)
            or (r._byweekno and not ii.wnomask[i])
            or (r._byweekday and ii.wdaymask[i] not in r._byweekday)
            or (ii.nwdaymask and not ii.nwdaymask[i])
            or (r._byeaster and not ii.eastermask[i])
            or (
                (r._bymonthday or r._bynmonthday)
                and ii.mdaymask[i] not in r._bymonthday
                and ii.nmdaymask[i] not in r._bynmonthday
            )
            or (
                r._byyearday
                and (
                    (
                        i < ii.yearlen
                        and i + 1 not in r._byyearday
                        and -ii.yearlen + i not in r._byyearday
                    )
                    or (
                        i >= ii.yearlen
                        and i + 1 - ii.yearlen not in r._byyearday
                        and -ii.nextyearlen + i - ii.yearlen not in r._byyearday
                    )
                )
            )
        ):
            continue
        kept += 1
    return kept


def picked(size: int, bysetpos: tuple[int, ...] | None) -> int:
    """How many of a period's `size` candidates BYSETPOS keeps."""
    if not bysetpos:
        return size
    return len({pos - 1 if pos > 0 else size + pos for pos in bysetpos if -size <= pos <= size})


class PeriodCounter:
    """Per-period occurrence counts of one rule (explicit defaults, dtstart = the rule's).

    Holds dateutil's mutable `_iterinfo`: make one per evaluation, never share between threads.
    """

    def __init__(self, rule: du.rrule, dtstart: datetime, end: datetime) -> None:
        self.rule = rule
        self.dtstart = dtstart
        self.end = end
        self.freq: int = rule._freq
        self.interval: int = rule._interval
        self._ii = du._iterinfo(rule)
        times = [len(rule._byhour or ()), len(rule._byminute or ()), len(rule._bysecond or ())]
        if self.freq < du.HOURLY:
            self._per_day = times[0] * times[1] * times[2]
        else:
            key = (self.freq, self.interval, _key(rule._byhour), _key(rule._byminute))
            self._units, self._per_unit, self._residues = _day_units(
                *key, _key(rule._bysecond), _key(rule._bysetpos)
            )

    def periods(
        self, *, reverse: bool = False, low: datetime | None = None
    ) -> Iterator[tuple[datetime, int]]:
        """(start, candidates) for each period from DTSTART's (or `low`'s) to `end`, or back.

        A rule started at `start` yields that period's `candidates` first. The first period's
        count includes candidates before DTSTART and `low` (callers filter those); a sub-daily
        rule's periods are days, and their start is the first grid point of the day (for the
        day of `low`: the first grid point at or after `low`'s unit, counting only from there).
        """
        low = max(low or self.dtstart, self.dtstart)
        if self.freq < du.HOURLY:
            yield from self._rule_periods(reverse, low)
        else:
            yield from self._day_periods(reverse, low)

    def _rule_periods(self, reverse: bool, low: datetime) -> Iterator[tuple[datetime, int]]:
        wkst = self.rule._wkst
        get_dayset = {
            du.YEARLY: self._ii.ydayset,
            du.MONTHLY: self._ii.mdayset,
            du.WEEKLY: self._ii.wdayset,
            du.DAILY: self._ii.ddayset,
        }[self.freq]
        first = period_index(self.freq, self.interval, wkst, self.dtstart, low)
        last = period_index(self.freq, self.interval, wkst, self.dtstart, self.end)
        for index in range(last, first - 1, -1) if reverse else range(first, last + 1):
            start = period_start(self.freq, self.interval, wkst, self.dtstart, index)
            self._ii.rebuild(start.year, start.month)
            dayset, low_i, high_i = get_dayset(start.year, start.month, start.day)
            days = kept_days(self.rule, self._ii, dayset[low_i:high_i])
            yield start, picked(days * self._per_day, self.rule._bysetpos)

    def _day_periods(self, reverse: bool, low: datetime) -> Iterator[tuple[datetime, int]]:
        first, last = low.toordinal(), self.end.toordinal()
        for ordinal in range(last, first - 1, -1) if reverse else range(first, last + 1):
            day = date.fromordinal(ordinal)
            self._ii.rebuild(day.year, day.month)
            dayset, low_i, high_i = self._ii.ddayset(day.year, day.month, day.day)
            if not kept_days(self.rule, self._ii, dayset[low_i:high_i]):
                continue
            since = low if ordinal == first else datetime.combine(day, dt.time())
            yield self._day_rest(since)

    def _day_rest(self, since: datetime) -> tuple[datetime, int]:
        """Grid start and candidate count of `since`'s day from `since`'s unit on."""
        units_per_day = _UNITS_PER_DAY[self.freq]
        unit_s = 86400 // units_per_day
        number = self._unit_number(since)
        shift = (self._unit_number(self.dtstart) - number) % self.interval
        day_unit = number % units_per_day
        if day_unit == 0:
            count = self._residues[shift]
        else:
            count = self._per_unit * sum(
                1 for u in self._units if u >= day_unit and (u - day_unit) % self.interval == shift
            )
        unit_start = datetime.combine(since.date(), dt.time()) + timedelta(
            seconds=day_unit * unit_s
        )
        return grid_at_or_after(self.freq, self.interval, self.dtstart, unit_start), count

    def _unit_number(self, wall: datetime) -> int:
        seconds = wall.hour * 3600 + wall.minute * 60 + wall.second
        unit_s = 86400 // _UNITS_PER_DAY[self.freq]
        return wall.toordinal() * _UNITS_PER_DAY[self.freq] + seconds // unit_s


def _key(values: Iterable[int] | None) -> tuple[int, ...] | None:
    return None if values is None else tuple(sorted(values))


@lru_cache(maxsize=256)
def _day_units(
    freq: int,
    interval: int,
    byhour: tuple[int, ...] | None,
    byminute: tuple[int, ...] | None,
    bysecond: tuple[int, ...] | None,
    bysetpos: tuple[int, ...] | None,
) -> tuple[tuple[int, ...], int, Counter[int]]:
    """A sub-daily rule's allowed units of the day (hours, minutes or seconds), occurrences per
    unit, and occurrences per day keyed by the day's grid residue. Cached: 86 400 units for a
    SECONDLY rule are worth computing once."""
    hours = byhour or range(24)
    minutes = byminute or range(60)
    seconds = bysecond or range(60)
    if freq == du.HOURLY:
        units, per_unit = tuple(hours), picked(len(minutes) * len(seconds), bysetpos)
    elif freq == du.MINUTELY:
        units = tuple(h * 60 + m for h, m in product(hours, minutes))
        per_unit = picked(len(seconds), bysetpos)
    else:
        units = tuple(h * 3600 + m * 60 + s for h, m, s in product(hours, minutes, seconds))
        per_unit = picked(1, bysetpos)
    residues: Counter[int] = Counter()
    for unit in units:
        residues[unit % interval] += per_unit
    return units, per_unit, residues
