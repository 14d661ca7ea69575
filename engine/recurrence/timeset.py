"""The times of day of an RRULE: every hour x minute x second of its lists, ascending.

A product of three sorted lists is never written out (24 x 60 x 60 would be 86 400 entries):
the k-th time and the first time at or after a given second are computed from the lists.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from datetime import time


@dataclass(frozen=True)
class TimeSet:
    """Sorted, distinct hours, minutes and seconds; times are seconds of the day."""

    hours: tuple[int, ...]
    minutes: tuple[int, ...]
    seconds: tuple[int, ...]

    @classmethod
    def of(cls, hours: object, minutes: object, seconds: object) -> TimeSet:
        return cls(*(tuple(sorted(set(values))) for values in (hours, minutes, seconds)))  # type: ignore[call-overload]

    def __len__(self) -> int:
        return len(self.hours) * len(self.minutes) * len(self.seconds)

    def at(self, index: int) -> int:
        """The index-th time (0-based), in seconds of the day."""
        per_hour = len(self.minutes) * len(self.seconds)
        hour, rest = divmod(index, per_hour)
        minute, second = divmod(rest, len(self.seconds))
        return self.hours[hour] * 3600 + self.minutes[minute] * 60 + self.seconds[second]

    def index_at_or_after(self, second_of_day: int) -> int:
        """Index of the first time >= `second_of_day` (len(self) when there is none)."""
        hour, rest = divmod(second_of_day, 3600)
        minute, second = divmod(rest, 60)
        h = bisect.bisect_left(self.hours, hour)
        if h == len(self.hours):
            return len(self)
        per_hour = len(self.minutes) * len(self.seconds)
        if self.hours[h] > hour:
            return h * per_hour
        m = bisect.bisect_left(self.minutes, minute)
        if m == len(self.minutes):
            return (h + 1) * per_hour
        if self.minutes[m] > minute:
            return h * per_hour + m * len(self.seconds)
        s = bisect.bisect_left(self.seconds, second)
        return h * per_hour + m * len(self.seconds) + s


def clock_time(second_of_day: int) -> time:
    hour, rest = divmod(second_of_day, 3600)
    return time(hour, *divmod(rest, 60))
