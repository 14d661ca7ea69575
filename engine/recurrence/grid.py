"""The period grid of an RRULE: where dateutil's k-th period starts.

dateutil walks a rule period by period from DTSTART (a year, a month, a WKST-aligned week, a
day, an hour, a minute, a second — times INTERVAL). Starting a fresh rule at the start of the
k-th period, with every default that dateutil derives from DTSTART written out, yields exactly
the original occurrences from that period on. That is what makes `next_after` cost the same
for a rule created today and one created ten years ago.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from dateutil import rrule as du

_UNIT_S = {du.HOURLY: 3600, du.MINUTELY: 60, du.SECONDLY: 1}


def period_index(freq: int, interval: int, wkst: int, dtstart: datetime, wall: datetime) -> int:
    """The k (>= 0) of the period that contains `wall` (0 when `wall` is before DTSTART's)."""
    if freq == du.YEARLY:
        steps = wall.year - dtstart.year
    elif freq == du.MONTHLY:
        steps = (wall.year - dtstart.year) * 12 + wall.month - dtstart.month
    elif freq == du.WEEKLY:
        steps = (wall.date() - _week_start(dtstart, wkst).date()).days // 7
    elif freq == du.DAILY:
        steps = (wall.date() - dtstart.date()).days
    else:
        steps = int((wall - _truncate(freq, dtstart)).total_seconds()) // _UNIT_S[freq]
    return max(0, steps // interval)


def period_start(freq: int, interval: int, wkst: int, dtstart: datetime, index: int) -> datetime:
    """The first wall time of period `index`.

    For period 0 that is where dateutil starts DTSTART's period: the whole year, month or day,
    but for WEEKLY only DTSTART's day to the end of its week (which BYSETPOS can tell apart).
    """
    if index <= 0 and freq == du.WEEKLY:
        return datetime.combine(dtstart.date(), datetime.min.time())
    steps = max(0, index) * interval
    if freq == du.YEARLY:
        return datetime(dtstart.year + steps, 1, 1)
    if freq == du.MONTHLY:
        year, month = divmod(dtstart.year * 12 + dtstart.month - 1 + steps, 12)
        return datetime(year, month + 1, 1)
    if freq == du.WEEKLY:
        return _week_start(dtstart, wkst) + timedelta(weeks=steps)
    if freq == du.DAILY:
        return datetime.combine(dtstart.date(), datetime.min.time()) + timedelta(days=steps)
    return _truncate(freq, dtstart) + timedelta(seconds=steps * _UNIT_S[freq])


def grid_at_or_after(freq: int, interval: int, dtstart: datetime, wall: datetime) -> datetime:
    """The first point of a sub-daily rule's grid at or after `wall` (may precede DTSTART)."""
    origin = _truncate(freq, dtstart)
    step_s = interval * _UNIT_S[freq]
    steps = -(-int((wall - origin).total_seconds()) // step_s)
    return origin + timedelta(seconds=steps * step_s)


def _week_start(dtstart: datetime, wkst: int) -> datetime:
    day = dtstart.date() - timedelta(days=(dtstart.weekday() - wkst) % 7)
    return datetime.combine(day, datetime.min.time())


def _truncate(freq: int, wall: datetime) -> datetime:
    if freq == du.HOURLY:
        return wall.replace(minute=0, second=0, microsecond=0)
    if freq == du.MINUTELY:
        return wall.replace(second=0, microsecond=0)
    return wall.replace(microsecond=0)
