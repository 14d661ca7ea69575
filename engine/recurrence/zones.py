"""Wall-clock times to instants in an IANA zone, with the DST choices made explicit.

Every wall-clock schedule (RRULE, cron) is evaluated on naive local times and turned into
instants here, so the DST semantics live in one place:

* a local time inside a spring-forward gap either *shifts* (it is read with the offset before
  the gap, RFC 5545 §3.3.5: 02:30 becomes 03:30 local), *skips*, or — cron — runs at the first
  instant after the gap (Vixie cron: 02:30 runs at 03:00);
* a local time inside a fall-back repeat means the *first* of its two instants, or *both*.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo
from enum import StrEnum
from functools import lru_cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from engine.recurrence.errors import InvalidSchedule

_DAY = timedelta(days=1)
#: Why an instant without an offset is refused (the CLI and the API say the same).
NEEDS_OFFSET = "an instant is ISO 8601 text with an offset, e.g. 2026-01-01T09:00:00+01:00"


class GapMode(StrEnum):
    """How a nonexistent wall time becomes an instant (see module docstring)."""

    SHIFT = "shift"
    SKIP = "skip"
    GAP_END = "gap_end"


@lru_cache(maxsize=512)
def load_zone(name: str) -> ZoneInfo:
    """The IANA zone `name`, or InvalidSchedule naming it."""
    try:
        if not name or name != name.strip() or ".." in name:
            raise ValueError(name)
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError) as exc:
        raise InvalidSchedule(
            name,
            f"unknown time zone {name!r}",
            hint="use an IANA zone name such as 'Europe/Berlin' or 'UTC'",
        ) from exc


def parse_aware(text: str) -> datetime:
    """An ISO 8601 instant with its offset; ValueError (NEEDS_OFFSET) for anything else, a
    wall time without an offset included: it would mean whatever zone the reader assumes."""
    try:
        instant = datetime.fromisoformat(text.strip())
    except ValueError as exc:
        raise ValueError(NEEDS_OFFSET) from exc
    if instant.utcoffset() is None:
        raise ValueError(f"{text.strip()[:40]} has no offset: {NEEDS_OFFSET}")
    return instant


def to_wall(instant: datetime, zone: tzinfo) -> datetime:
    """The naive local wall time of an aware `instant` in `zone`."""
    return instant.astimezone(zone).replace(tzinfo=None)


def is_gap(wall: datetime, zone: tzinfo) -> bool:
    """True when `wall` does not exist in `zone` (it falls in a spring-forward gap)."""
    aware = wall.replace(tzinfo=zone)
    return to_wall(aware.astimezone(UTC), zone) != wall


def is_repeated(wall: datetime, zone: tzinfo) -> bool:
    """True when `wall` happens twice in `zone` (it falls in a fall-back repeat)."""
    first = wall.replace(tzinfo=zone, fold=0)
    return not is_gap(wall, zone) and first.utcoffset() != first.replace(fold=1).utcoffset()


def gap_end(wall: datetime, zone: tzinfo) -> datetime:
    """The first instant after the spring-forward gap that contains `wall` (found by bisection)."""
    before = wall.replace(tzinfo=zone, fold=0)
    after_offset = wall.replace(tzinfo=zone, fold=1).utcoffset()
    high = before.astimezone(UTC)
    low = high - (after_offset - before.utcoffset())  # type: ignore[operator]
    return offset_change(zone, low, high)


def offset_change(zone: tzinfo, low: datetime, high: datetime) -> datetime:
    """The instant (in `zone`, to the second) at which the zone's offset becomes the one it has
    at `high`, given that it has another at `low` and changes once in between (bisection)."""
    target = high.astimezone(zone).utcoffset()
    while high - low > timedelta(seconds=1):
        middle = low + (high - low) / 2
        if middle.astimezone(zone).utcoffset() == target:
            high = middle
        else:
            low = middle
    return high.replace(microsecond=0).astimezone(zone)


@dataclass(frozen=True)
class WallMapping:
    """One DST policy: how any wall time maps to zero, one or two instants."""

    zone: tzinfo
    gap: GapMode
    repeat_both: bool

    def instants(self, wall: datetime) -> tuple[datetime, ...]:
        """The instants (in the zone, ascending) at which an occurrence at `wall` runs; none
        for a wall time whose instant would fall outside the calendar (9999-12-31 west of UTC)."""
        try:
            return self._instants(wall)
        except OverflowError:
            return ()

    def _instants(self, wall: datetime) -> tuple[datetime, ...]:
        first = wall.replace(tzinfo=self.zone, fold=0)
        if is_gap(wall, self.zone):
            if self.gap is GapMode.SKIP:
                return ()
            if self.gap is GapMode.GAP_END:
                return (gap_end(wall, self.zone),)
            return (first.astimezone(UTC).astimezone(self.zone),)
        second = wall.replace(tzinfo=self.zone, fold=1)
        if self.repeat_both and first.utcoffset() != second.utcoffset():
            return (first, second)
        return (first,)

    def wall_floor(self, instant: datetime) -> datetime:
        """A wall time at or before the wall of every occurrence that runs after `instant`."""
        offsets = _nearby(lambda step: (instant + step).astimezone(self.zone).utcoffset())
        naive_utc = instant.astimezone(UTC).replace(tzinfo=None)
        try:
            return naive_utc + min(offsets)
        except OverflowError:
            return datetime.min if naive_utc.year == 1 else datetime.max

    def instant_floor(self, wall: datetime) -> datetime:
        """An instant at or before every instant of every wall time at or after `wall`."""
        offsets = _nearby(lambda step: (wall + step).replace(tzinfo=self.zone).utcoffset())
        try:
            return (wall - max(offsets)).replace(tzinfo=UTC)
        except OverflowError:
            return datetime.min.replace(tzinfo=UTC)


def _nearby(offset_at: Callable[[timedelta], timedelta | None]) -> list[timedelta]:
    """The zone's offsets a day before, at and a day after a point (DST changes within a day
    are what make wall times and instants disagree); edges of the datetime range are skipped."""
    found = []
    for step in (-_DAY, 0 * _DAY, _DAY):
        try:
            offset = offset_at(step)
        except OverflowError:
            continue
        if offset is not None:
            found.append(offset)
    return found or [timedelta(0)]
