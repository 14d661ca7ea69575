"""Named calendars of dates a rule must not run on (or, with included dates, only runs on).

The one place the exclusion is decided: `Schedule.occurrences_after` filters through
`kept_after`, so the preview, the planner and the runner see the same series. A date is the
occurrence's *local* date in the schedule's zone (an occurrence at 00:30 Berlin on a holiday is
excluded even though it is the previous day in UTC).

The search is bounded by the calendars themselves: an excluded date is skipped by seeking past
its end (not occurrence by occurrence, so a secondly rule costs one seek per excluded day), and
a calendar with included dates ends the series after its last one. Calendars hold finite date
sets, so at most one seek per listed date is ever made.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta, tzinfo

from engine.recurrence.series import Occurrence

_EPSILON = timedelta(microseconds=1)


@dataclass(frozen=True)
class Calendar:
    """A tenant's named set of excluded dates; when `included` is not empty, only those dates
    are allowed (minus the excluded ones)."""

    name: str
    excluded: frozenset[date] = frozenset()
    included: frozenset[date] = frozenset()

    def allows(self, day: date) -> bool:
        return day not in self.excluded and (not self.included or day in self.included)

    def next_included(self, day: date) -> date | None:
        """The first included date after `day` (None: none left); `day + 1` without a list."""
        if not self.included:
            return day + timedelta(days=1)
        return min((d for d in self.included if d > day), default=None)


@dataclass(frozen=True)
class Skipped:
    """An occurrence a calendar removed, and the calendar that removed it."""

    at: datetime
    calendar: str


@dataclass(frozen=True)
class Calendars:
    """The calendars of one rule, applied together (a date must be allowed by every one)."""

    items: tuple[Calendar, ...] = field(default=())

    def blocking(self, day: date) -> Calendar | None:
        """The first calendar that does not allow `day` (None: it is allowed)."""
        return next((c for c in self.items if not c.allows(day)), None)

    def resume_day(self, day: date) -> date | None:
        """The earliest date after `day` every calendar's included list still allows."""
        days = [c.next_included(day) for c in self.items]
        return None if None in days else max(d for d in days if d is not None)


Source = Callable[[datetime], Iterator[Occurrence]]


def walk(
    source: Source, calendars: Calendars, instant: datetime
) -> Iterator[tuple[Occurrence, Calendar | None]]:
    """Every occurrence after `instant` with the calendar that blocks it (None: it runs),
    seeking past a blocked day instead of walking it. Occurrences are aware in the schedule's
    zone, so their own date is the local date."""
    after = instant
    while True:
        for occurrence in source(after):
            blocker = calendars.blocking(occurrence.at.date())
            yield occurrence, blocker
            if blocker is not None:
                break
        else:
            return
        resume = calendars.resume_day(occurrence.at.date())
        if resume is None:
            return
        zone = occurrence.at.tzinfo or UTC
        after = max(occurrence.at, day_start(resume, zone) - _EPSILON)


def kept_after(source: Source, calendars: Calendars, instant: datetime) -> Iterator[Occurrence]:
    """Occurrences after `instant` on dates every calendar allows."""
    return (o for o, blocker in walk(source, calendars, instant) if blocker is None)


def skipped_between(
    source: Source, calendars: Calendars, after: datetime, until: datetime, limit: int
) -> list[Skipped]:
    """Occurrences in (`after`, `until`] the calendars removed (at most `limit`): only the
    first of a blocked day is reported, the rest of that day is skipped by one seek."""
    found: list[Skipped] = []
    for occurrence, blocker in walk(source, calendars, after):
        if occurrence.at > until or len(found) == limit:
            break
        if blocker is not None:
            found.append(Skipped(occurrence.at, blocker.name))
    return found


def day_start(day: date, zone: tzinfo) -> datetime:
    """The first instant whose local date is `day`: midnight, or when midnight falls in a gap
    the end of the gap, or when it is repeated the second midnight (the earlier one belongs to
    a day the clock then returns to)."""
    naive = datetime.combine(day, time())
    candidates = (naive.replace(tzinfo=zone, fold=f).astimezone(UTC) for f in (0, 1))
    return max(candidates)


def described(calendars: Sequence[Calendar]) -> str:
    """The clause the plain-English text ends with: `except dates in calendar 'X'`, and for
    a calendar with included dates `only on dates included in calendar 'Y'`."""
    clauses = [f"except dates in calendar '{c.name}'" for c in calendars if not c.included]
    clauses += [f"only on dates included in calendar '{c.name}'" for c in calendars if c.included]
    return ", ".join(clauses)
