"""Which days of a year pass an RRULE's date parts, exactly as dateutil decides.

The kept days of one kind of year (see `kept_days`) are worked out with dateutil's own
`_iterinfo` masks, so the filter is dateutil's; the property tests compare the result with
plain dateutil, so an incompatible dateutil fails loudly.
"""

from __future__ import annotations

import calendar
from datetime import date, datetime
from typing import Any

from dateutil import rrule as du

from engine.recurrence.kept_days import KeptDays, prefix_of

_DATE_PARTS = ("bymonth", "byweekno", "byyearday", "bymonthday", "byweekday")


class DayFilter(KeptDays):
    """The date parts of one rule (explicit defaults written out) and their kept days per year.

    Holds a dateutil `_iterinfo`, which is mutable: build one per rule, never share between
    threads (schedules are evaluated on one thread each).
    """

    def __init__(self, kwargs: dict[str, Any]) -> None:
        parts = {name: kwargs[name] for name in _DATE_PARTS if kwargs.get(name)}
        key = (kwargs["freq"], kwargs["wkst"], *(_frozen(parts.get(n)) for n in _DATE_PARTS))
        self.is_every_day = not parts
        self._freq = kwargs["freq"]
        rule = du.rrule(kwargs["freq"], dtstart=datetime(2000, 1, 1), wkst=kwargs["wkst"], **parts)
        self._rule = rule
        self._info = du._iterinfo(rule)
        super().__init__(key, (bool(rule._byweekno), bool(rule._byyearday)))

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
        return prefix_of(kept)

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
