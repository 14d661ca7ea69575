"""One RRULE line on naive local wall times: its walker, its first and last occurrence, its end.

Construction writes out every default dateutil derives from DTSTART, so the rule can be
evaluated from any block on (see `walker`). An explicit UNTIL or COUNT is honoured exactly,
however far it lies; only a rule with neither ends at the horizon cap, which the caller counts
from the rule's creation (see `parse`). COUNT is first a count of wall times; `runs` then
corrects it for DST, where one wall time may run twice or not at all.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from datetime import datetime
from enum import StrEnum
from typing import Any

from dateutil import rrule as du

from engine.recurrence.coarse import CoarseBlocks
from engine.recurrence.errors import InvalidSchedule, NeverOccurs
from engine.recurrence.subdaily import SubDailyBlocks
from engine.recurrence.walker import LAST_WALL, LAST_YEAR, Walker

#: Years after DTSTART's searched for the first occurrence before the costlier proofs.
_SOON_YEARS = 4
_NEVER_HINT = "check BYMONTH/BYMONTHDAY/BYDAY/BYSETPOS combinations and INTERVAL"


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
    """An RRULE with explicit defaults, DTSTART, first and last wall time, end and why.

    `end` is the bound the rule states (UNTIL, the COUNT-th occurrence, or the cap); `last` is
    its last wall time at or before it. When DST runs that last wall time twice and only the
    first run is counted, `last_runs` is 1.
    """

    kwargs: dict[str, Any]
    dtstart: datetime
    first: datetime
    last: datetime
    end: datetime
    ends_by: EndsBy
    walker: Walker = field(compare=False, repr=False)
    count: int | None = None
    last_runs: int | None = None

    def walls_from(self, low: datetime) -> Iterator[datetime]:
        """Wall times at or after `low`, ascending, up to `last`."""
        if low > self.last:
            return
        for wall in self.walker.walls_from(low):
            if wall > self.last:
                return
            yield wall

    def walls_back(self, high: datetime) -> Iterator[datetime]:
        """Wall times at or before `high` (and `last`), descending."""
        return self.walker.walls_back(min(high, self.last))

    def with_last(self, last: datetime, runs: int | None) -> WallRule:
        return replace(self, last=last, end=last, last_runs=runs)


def build_wall_rule(
    text: str, kwargs: dict[str, Any], dtstart: datetime, until: datetime | None, cap: datetime
) -> WallRule:
    """Validate one rule line against its DTSTART; InvalidSchedule when it never occurs or its
    COUNT does not fit in the calendar. `cap` bounds it only when it has no UNTIL or COUNT."""
    if until is not None and until < dtstart:
        reason = f"UNTIL {until:%Y-%m-%d %H:%M} is before DTSTART {dtstart:%Y-%m-%d %H:%M}"
        raise InvalidSchedule(text, reason, hint="move UNTIL after DTSTART or drop it")
    rest = dict(kwargs)
    count = rest.pop("count", None)
    until = None if until is None else min(until, LAST_WALL)
    explicit = explicit_defaults(rest, dtstart)
    _check_reachable(text, explicit, dtstart)
    blocks_type = CoarseBlocks if explicit["freq"] < du.HOURLY else SubDailyBlocks
    blocks = blocks_type(explicit, dtstart)
    walker = Walker(blocks)
    bound = until if until is not None else (LAST_WALL if count else min(cap, LAST_WALL))
    first = first_wall(walker, blocks.can_occur)
    if first is None or first > bound:
        reason = f"the rule never occurs between {dtstart:%Y-%m-%d} and {_day(bound)}"
        raise NeverOccurs(text, reason, hint=_NEVER_HINT)
    if count is not None:
        last = _counted(text, walker, count)
        return WallRule(explicit, dtstart, first, last, last, EndsBy.COUNT, walker, count)
    last = next(walker.walls_back(bound))
    ends_by = EndsBy.UNTIL if until is not None else EndsBy.CAP
    return WallRule(explicit, dtstart, first, last, bound, ends_by, walker)


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


def _check_reachable(text: str, explicit: dict[str, Any], dtstart: datetime) -> None:
    """dateutil refuses BYHOUR/BYMINUTE/BYSECOND values its INTERVAL never reaches."""
    try:
        du.rrule(dtstart=dtstart, **explicit)
    except ValueError as exc:
        reason = "the BYHOUR/BYMINUTE/BYSECOND values are never reached by INTERVAL from DTSTART"
        raise InvalidSchedule(text, reason, hint="pick values on the INTERVAL's grid") from exc


def first_wall(walker: Walker, can_occur: Callable[[], bool]) -> datetime | None:
    """The first wall time: looked for in DTSTART's year and the next few, and further only
    when no kind of year rules it out (`can_occur` is the costlier proof)."""
    start = walker.blocks.dtstart
    soon = next(walker.walls_from(start, min(start.year + _SOON_YEARS, LAST_YEAR)), None)
    if soon is not None or not can_occur():
        return soon
    return next(walker.walls_from(start), None)


def _counted(text: str, walker: Walker, count: int) -> datetime:
    last = walker.nth(count)
    if last is None or last > LAST_WALL:
        found = walker.count(LAST_WALL)
        reason = f"COUNT={count}: only {found} occurrences fit before the end of year {LAST_YEAR}"
        raise InvalidSchedule(text, reason, hint="lower COUNT or use UNTIL")
    return last


def _day(wall: datetime) -> str:
    return "the end of the calendar" if wall == LAST_WALL else f"{wall:%Y-%m-%d}"
