"""The one `Schedule` type every kind parses into, and what each kind must provide."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from functools import cached_property
from typing import Protocol

from engine.recurrence.calendars import Calendar, Calendars, described, kept_after
from engine.recurrence.errors import RangeTooLarge, ScheduleError
from engine.recurrence.options import ScheduleKind
from engine.recurrence.series import Occurrence
from engine.recurrence.wall_rule import EndsBy

#: The most occurrences one `between` call returns.
MAX_BETWEEN = 10_000
_EPSILON = timedelta(microseconds=1)


@dataclass(frozen=True)
class Description:
    """Plain-English text of a schedule; `complete`: reading the text back gives the same
    occurrences (else the text names what it leaves out)."""

    text: str
    complete: bool


class Source(Protocol):
    """What a schedule kind implements."""

    @property
    def ends(self) -> datetime | None:
        """The instant of the series' last occurrence (None: it never ends)."""

    @property
    def ends_by(self) -> EndsBy | None:
        """Why the series ends."""

    def occurrences_after(self, instant: datetime) -> Iterator[Occurrence]:
        """Occurrences strictly after the aware `instant`, ascending."""

    def describe(self) -> Description:
        """The schedule in plain English."""

    def warnings(self) -> list[str]:
        """Things the user should know that are true of the whole series."""


@dataclass(frozen=True)
class Schedule:
    """A parsed, validated schedule. Immutable; every method is pure and bounded in time.

    Occurrences are aware datetimes in the schedule's zone. Compare them with each other only
    after `.astimezone(UTC)` when `dst_repeat=both` is used: Python ignores `fold` when comparing
    two datetimes of the same zone, so 02:30 (first) and 02:30 (second) would compare equal.
    """

    kind: ScheduleKind
    text: str
    timezone: str
    source: Source
    #: Dates the series skips (`engine.recurrence.calendars`); every method below honours them.
    calendars: Calendars = field(default=Calendars())

    def with_calendars(self, calendars: tuple[Calendar, ...]) -> Schedule:
        """This schedule without the occurrences whose local date `calendars` exclude."""
        return replace(self, calendars=Calendars(calendars)) if calendars else self

    def next_after(self, instant: datetime) -> datetime | None:
        """The first occurrence strictly after the aware `instant`; None once the series ended.

        Costs the same whatever the age of DTSTART and however rare the rule (evaluation starts
        at the block holding `instant` and skips empty years whole, see `walker`), and never
        loops unboundedly (EvaluationBudgetExceeded as a last resort).
        """
        for occurrence in self.occurrences_after(instant):
            return occurrence.at
        return None

    def between(self, start: datetime, end: datetime) -> list[datetime]:
        """Occurrences with start <= occurrence < end, at most MAX_BETWEEN (else RangeTooLarge)."""
        found: list[datetime] = []
        end = end.astimezone(UTC)  # compared across zones, so `fold` counts
        for occurrence in self.occurrences_after(start - _EPSILON):
            if occurrence.at >= end:
                break
            if len(found) == MAX_BETWEEN:
                raise RangeTooLarge(f"more than {MAX_BETWEEN} occurrences; ask for a shorter range")
            found.append(occurrence.at)
        return found

    def occurrences_after(self, instant: datetime) -> Iterator[Occurrence]:
        """Occurrences (with the wall time each was asked for) strictly after `instant`, on
        dates the calendars allow."""
        if not self.calendars.items:
            return self.unfiltered_after(instant)
        return kept_after(self.unfiltered_after, self.calendars, instant)

    def unfiltered_after(self, instant: datetime) -> Iterator[Occurrence]:
        """Occurrences strictly after `instant`, calendars not applied."""
        if instant.tzinfo is None or instant.utcoffset() is None:
            raise ScheduleError(f"{instant.isoformat()} has no time zone; pass an aware datetime")
        try:
            instant = instant.astimezone(UTC)
        except OverflowError:  # past year 9999 in UTC: after every series
            return iter(())
        ends = self.source.ends
        if ends is not None and instant >= ends:
            return iter(())
        return self.source.occurrences_after(instant)

    def describe(self) -> Description:
        """Plain-English text; `complete=False` when part of the rule is not put into words.
        Worked out once per schedule (rule lists show it for every rule)."""
        return self._description

    @cached_property
    def _description(self) -> Description:
        plain = self.source.describe()
        if not self.calendars.items:
            return plain
        return replace(plain, text=f"{plain.text}, {described(self.calendars.items)}")
