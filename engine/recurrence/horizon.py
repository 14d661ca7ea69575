"""The horizon: where a schedule without COUNT or UNTIL stops, and what it counts from.

It is a guard, not an edit: it bounds only open-ended schedules, so that every series ends and
its last date can be shown. It counts from the later of the series' start and `since` (the
rule's creation or last change, or for a preview the instant it is evaluated at), so an old
DTSTART never makes a rule end before it began.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, tzinfo

from engine.recurrence.walker import LAST_WALL
from engine.recurrence.zones import to_wall


@dataclass(frozen=True)
class Horizon:
    """`anchor`: the DTSTART of a rule written without one, and an interval's start; `since`
    and `years`: the cap is `years` after the later of the start and `since` (all aware)."""

    anchor: datetime
    since: datetime
    years: int
    cap: datetime | None = None

    def cap_wall(self, start: datetime, zone: tzinfo) -> datetime:
        """The cap as a wall time, for a series starting at wall time `start`."""
        return min(add_years(max(start, to_wall(self.since, zone)), self.years), LAST_WALL)

    def with_cap(self, cap: datetime, zone: tzinfo) -> Horizon:
        return replace(self, cap=cap.replace(tzinfo=zone))

    @property
    def counted_from(self) -> datetime:
        """The instant the cap counts from (its date minus `years`)."""
        assert self.cap is not None
        return add_years(self.cap, -self.years)


def add_years(wall: datetime, years: int) -> datetime:
    """The same date `years` later (28 February for a 29th that does not exist then)."""
    try:
        return wall.replace(year=min(wall.year + years, 9999))
    except ValueError:
        return wall.replace(year=min(wall.year + years, 9999), day=28)
