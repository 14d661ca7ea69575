"""One RRULE line on naive local wall times: guards at construction, fast restart on lookup.

Construction writes out every default dateutil derives from DTSTART, so a rule restarted at any
later period start yields the same occurrences (see `grid`). COUNT is turned into the wall time
of its last occurrence by counting periods (see `periods`), so no lookup ever counts from
DTSTART. A rule with neither COUNT nor UNTIL ends at the horizon cap.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from itertools import islice, pairwise
from typing import Any

from dateutil import rrule as du

from engine.recurrence.errors import InvalidSchedule
from engine.recurrence.periods import PeriodCounter

#: More candidates than this in one period is rejected (a YEARLY rule listing every minute).
MAX_PER_PERIOD = 20_000
_HINT = "use a shorter FREQ (e.g. DAILY or MINUTELY) with fewer BYxxx values"


class EndsBy(StrEnum):
    """Why a series ends; the values are the API strings."""

    COUNT = "count"
    """COUNT occurrences have happened."""
    UNTIL = "until"
    """UNTIL (or the last RDATE / the one-shot instant) has passed."""
    CAP = "cap"
    """The horizon cap added to a rule that would otherwise run forever."""


@dataclass(frozen=True)
class WallRule:
    """An RRULE with explicit defaults, DTSTART, first and last occurrence, end and why it ends.

    `end` is the bound the rule states (UNTIL, the COUNT-th occurrence, or the cap); `last` is
    the last occurrence at or before it. Iteration stops at `last` itself: dateutil would
    otherwise look for one more occurrence, which for a rare rule means scanning to year 9999.
    """

    kwargs: dict[str, Any]
    dtstart: datetime
    first: datetime
    last: datetime
    end: datetime
    ends_by: EndsBy
    count: int | None = None

    def walls_from(self, low: datetime) -> Iterator[datetime]:
        """Occurrences at or after wall time `low`, ascending.

        Walks period by period from the one containing `low`, skipping empty periods by their
        day counts and starting dateutil afresh in each non-empty one, so the cost depends
        neither on the age of DTSTART nor on how sparse the rule is.
        """
        if low > self.last:
            return
        counter = PeriodCounter(
            du.rrule(dtstart=self.dtstart, **self.kwargs), self.dtstart, self.last
        )
        for start, candidates in counter.periods(low=low):
            for wall in islice(du.rrule(dtstart=start, **self.kwargs), candidates):
                if wall >= low and wall >= self.dtstart:
                    yield wall
                if wall >= self.last:
                    return


def build_wall_rule(
    text: str, kwargs: dict[str, Any], dtstart: datetime, until: datetime | None, cap: datetime
) -> WallRule:
    """Validate one rule line against its DTSTART and the horizon; InvalidSchedule when bad."""
    if until is not None and until < dtstart:
        reason = f"UNTIL {until:%Y-%m-%d %H:%M} is before DTSTART {dtstart:%Y-%m-%d %H:%M}"
        raise InvalidSchedule(text, reason, hint="move UNTIL after DTSTART or drop it")
    rest = dict(kwargs)
    count = rest.pop("count", None)
    explicit = explicit_defaults(rest, dtstart)
    bound = min(until, cap) if until is not None else cap
    try:
        rule = du.rrule(dtstart=dtstart, until=bound, **explicit)
    except ValueError as exc:
        reason = "the BYHOUR/BYMINUTE/BYSECOND values are never reached by INTERVAL from DTSTART"
        raise InvalidSchedule(text, reason, hint="pick values on the INTERVAL's grid") from exc
    counter = PeriodCounter(rule, dtstart, bound)
    first, counted = _scan(text, counter, explicit, count)
    if first is None:
        reason = f"the rule never occurs between {dtstart:%Y-%m-%d} and {bound:%Y-%m-%d}"
        raise InvalidSchedule(text, reason, hint="check BYMONTH/BYMONTHDAY/BYSETPOS combinations")
    if counted is not None:
        return WallRule(explicit, dtstart, first, counted, counted, EndsBy.COUNT, count)
    last = _last(counter, explicit) or first
    if until is not None and until <= cap:
        return WallRule(explicit, dtstart, first, last, until, EndsBy.UNTIL)
    return WallRule(explicit, dtstart, first, last, cap, EndsBy.CAP)


def explicit_defaults(kwargs: dict[str, Any], dtstart: datetime) -> dict[str, Any]:
    """`kwargs` with the values dateutil would take from DTSTART written out."""
    out = dict(kwargs)
    freq = out["freq"]
    out.setdefault("wkst", 0)
    day_parts = ("byweekno", "byyearday", "bymonthday", "byweekday", "byeaster")
    if not any(out.get(part) for part in day_parts):
        if freq == du.YEARLY:
            out.setdefault("bymonth", (dtstart.month,))
            out["bymonthday"] = (dtstart.day,)
        elif freq == du.MONTHLY:
            out["bymonthday"] = (dtstart.day,)
        elif freq == du.WEEKLY:
            out["byweekday"] = (du.weekday(dtstart.weekday()),)
    for name, level, value in (
        ("byhour", du.HOURLY, dtstart.hour),
        ("byminute", du.MINUTELY, dtstart.minute),
        ("bysecond", du.SECONDLY, dtstart.second),
    ):
        if freq < level:
            out.setdefault(name, (value,))
    return out


def min_gap_s(walls: Iterator[datetime], sample: int = 100_000) -> float | None:
    """The smallest gap between consecutive walls among the first `sample`."""
    gaps = [(b - a).total_seconds() for a, b in pairwise(islice(walls, sample))]
    return min(gaps) if gaps else None


def _scan(
    text: str, counter: PeriodCounter, explicit: dict[str, Any], count: int | None
) -> tuple[datetime | None, datetime | None]:
    """(first occurrence, COUNT-th occurrence) within the counter's span, counted per period."""
    first: datetime | None = None
    seen = 0
    for start, candidates in counter.periods():
        if not candidates:
            continue
        if candidates > MAX_PER_PERIOD:
            reason = f"{candidates} occurrences in one period (at most {MAX_PER_PERIOD})"
            raise InvalidSchedule(text, reason, hint=_HINT)
        skip = first is not None and start > counter.dtstart
        if skip and (count is None or seen + candidates < count):
            seen += candidates
            continue
        walls = _period_walls(counter, explicit, start, candidates)
        if count is None:
            first = next(walls, None)
            if first is not None:
                return first, None
            continue
        exact = list(walls)
        first = first or (exact[0] if exact else None)
        if seen + len(exact) >= count:
            return first, exact[count - seen - 1]
        seen += len(exact)
    return first, None


def _last(counter: PeriodCounter, explicit: dict[str, Any]) -> datetime | None:
    """The last occurrence within the counter's span, found from the end backwards."""
    for start, candidates in counter.periods(reverse=True):
        exact = list(_period_walls(counter, explicit, start, candidates))
        if exact:
            return exact[-1]
    return None


def _period_walls(
    counter: PeriodCounter, explicit: dict[str, Any], start: datetime, candidates: int
) -> Iterator[datetime]:
    """The occurrences of the period starting at `start` that lie within the counter's span."""
    walls = islice(du.rrule(dtstart=start, **explicit), candidates)
    return (wall for wall in walls if counter.dtstart <= wall <= counter.end)
