"""Warnings about an RFC 5545 schedule as a whole: each one states only what is true of it.

A missing day that really is skipped, EXDATE and RDATE values that change nothing, an UNTIL
that falls on the morning of a day whose run comes later, and the DST policy when it matters.
"""

from __future__ import annotations

import calendar
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta

from engine.recurrence import wording as w
from engine.recurrence.parts import RecurrenceParts
from engine.recurrence.transitions import transitions
from engine.recurrence.wall_rule import EndsBy, WallRule
from engine.recurrence.zones import GapMode

#: Values named in one warning; more are counted.
_NAMED = 3


def recurrence_warnings(recurrence: RecurrenceParts) -> list[str]:
    warnings = [text for rule in recurrence.rules if (text := missing_day(rule))]
    warnings += [text for rule in recurrence.rules if (text := until_cuts_last_day(rule))]
    warnings += [w.WARN_RULE_DEAD.format(rule=rule) for rule in recurrence.dead]
    warnings += _unused_exdates(recurrence) + _redundant_rdates(recurrence)
    if recurrence.mapping.gap is GapMode.SKIP and _has_gaps(recurrence):
        warnings.append(w.WARN_DST_SKIP)
    return warnings


def missing_day(rule: WallRule) -> str | None:
    """'skips months without a 31st day' when a listed day of the month is missing in some of
    the months the rule runs in; 'only in leap years' when that month is February alone."""
    days = list(rule.kwargs.get("bymonthday") or ())
    if not days or min(days) < 29:
        return None
    months = sorted(rule.kwargs.get("bymonth") or range(1, 13))
    day = min(days)
    short = [m for m in months if day > calendar.monthrange(2001, m)[1]]
    if not short or (len(short) == len(months) and short != [2]):
        return None
    if short == months == [2]:
        return w.WARN_LEAP_ONLY.format(day=day)
    return w.WARN_MISSING_DAY.format(day=w.ordinal(day))


def until_cuts_last_day(rule: WallRule) -> str | None:
    """UNTIL at a time of day before that day's run: the run people expect does not happen."""
    if rule.ends_by is not EndsBy.UNTIL:
        return None
    after = next(rule.walker.walls_from(rule.end + timedelta(seconds=1)), None)
    if after is None or after.date() != rule.end.date():
        return None
    return w.WARN_UNTIL_CUTS.format(
        until=f"{rule.end:%Y-%m-%d %H:%M}", run=f"{after:%H:%M}", last=f"{rule.last:%Y-%m-%d %H:%M}"
    )


def _unused_exdates(recurrence: RecurrenceParts) -> list[str]:
    unused = [day for day in sorted(recurrence.exdates) if not _is_occurrence(recurrence, day)]
    return [w.WARN_EXDATE_UNUSED.format(dates=_named(unused))] if unused else []


def _redundant_rdates(recurrence: RecurrenceParts) -> list[str]:
    warnings = []
    doubled = [day for day in recurrence.rdates if any(_is_wall(r, day) for r in recurrence.rules)]
    if doubled:
        warnings.append(w.WARN_RDATE_DOUBLED.format(dates=_named(doubled)))
    removed = [day for day in recurrence.rdates if day in recurrence.exdates]
    if removed:
        warnings.append(w.WARN_RDATE_REMOVED.format(dates=_named(removed)))
    return warnings


def _is_occurrence(recurrence: RecurrenceParts, wall: datetime) -> bool:
    return wall in recurrence.rdates or any(_is_wall(rule, wall) for rule in recurrence.rules)


def _is_wall(rule: WallRule, wall: datetime) -> bool:
    return next(rule.walls_from(wall), None) == wall


def _has_gaps(recurrence: RecurrenceParts) -> bool:
    first = min(rule.first for rule in recurrence.rules) if recurrence.rules else None
    ends = recurrence.ends
    if first is None or ends is None:
        return False
    span = first.replace(tzinfo=UTC) - timedelta(days=2), ends.astimezone(UTC)
    return any(change.is_gap for change in transitions(recurrence.mapping.zone, *span))


def _named(walls: Iterable[datetime]) -> str:
    values = [f"{wall:%Y-%m-%d %H:%M}" for wall in walls]
    shown = ", ".join(values[:_NAMED])
    return shown if len(values) <= _NAMED else f"{shown} and {len(values) - _NAMED} more"
