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
from collections.abc import Iterator
from datetime import datetime, timedelta
from itertools import product

from dateutil import rrule as du

from engine.recurrence.grid import grid_at_or_after, period_start

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
    """Per-period occurrence counts of one rule (explicit defaults, dtstart = the rule's)."""

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
            self._residues = self._unit_residues()

    def periods(self) -> Iterator[tuple[datetime, int]]:
        """(start, candidates) for each period from DTSTART's to `end`.

        A rule started at `start` yields that period's `candidates` first. The first period's
        count includes candidates before DTSTART (callers check those exactly); a sub-daily
        rule's periods are days, and their start is the first grid point of the day.
        """
        if self.freq < du.HOURLY:
            yield from self._rule_periods()
        else:
            yield from self._day_periods()

    def _rule_periods(self) -> Iterator[tuple[datetime, int]]:
        wkst = self.rule._wkst
        get_dayset = {
            du.YEARLY: self._ii.ydayset,
            du.MONTHLY: self._ii.mdayset,
            du.WEEKLY: self._ii.wdayset,
            du.DAILY: self._ii.ddayset,
        }[self.freq]
        index = 0
        while True:
            start = period_start(self.freq, self.interval, wkst, self.dtstart, index)
            if start > self.end:
                return
            self._ii.rebuild(start.year, start.month)
            dayset, low, high = get_dayset(start.year, start.month, start.day)
            days = kept_days(self.rule, self._ii, dayset[low:high])
            yield start, picked(days * self._per_day, self.rule._bysetpos)
            index += 1

    def _day_periods(self) -> Iterator[tuple[datetime, int]]:
        units = _UNITS_PER_DAY[self.freq]
        origin = self._unit_number(self.dtstart)
        day = self.dtstart.date()
        while day <= self.end.date():
            self._ii.rebuild(day.year, day.month)
            dayset, low, high = self._ii.ddayset(day.year, day.month, day.day)
            if kept_days(self.rule, self._ii, dayset[low:high]):
                shift = (origin - day.toordinal() * units) % self.interval
                midnight = datetime.combine(day, dt.time())
                start = grid_at_or_after(self.freq, self.interval, self.dtstart, midnight)
                yield start, self._residues[shift]
            day += timedelta(days=1)

    def _unit_number(self, wall: datetime) -> int:
        seconds = wall.hour * 3600 + wall.minute * 60 + wall.second
        unit_s = 86400 // _UNITS_PER_DAY[self.freq]
        return wall.toordinal() * _UNITS_PER_DAY[self.freq] + seconds // unit_s

    def _unit_residues(self) -> Counter[int]:
        """Occurrences per day keyed by the day's grid residue (units allowed by BYxxx)."""
        r = self.rule
        hours = r._byhour or range(24)
        minutes = r._byminute or range(60)
        seconds = r._bysecond or range(60)
        if self.freq == du.HOURLY:
            units, per_unit = list(hours), picked(len(minutes) * len(seconds), r._bysetpos)
        elif self.freq == du.MINUTELY:
            units = [h * 60 + m for h, m in product(hours, minutes)]
            per_unit = picked(len(seconds), r._bysetpos)
        else:
            units = [h * 3600 + m * 60 + s for h, m, s in product(hours, minutes, seconds)]
            per_unit = picked(1, r._bysetpos)
        counts: Counter[int] = Counter()
        for unit in units:
            counts[unit % self.interval] += per_unit
        return counts
