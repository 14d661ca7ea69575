"""Wall times a DST gap skips: what a `dst_gap=skip` RRULE or a wildcard cron job never runs.

Such a wall time has no instant of its own. The one we give it is the instant the wall clock
jumped over it (the gap's start, which is also its end: 02:00 CET and 03:00 CEST are the same
instant). It is the moment the occurrence became impossible, it lies between the occurrences
before and after the gap, and it does not depend on how far into the gap the wall time was;
several skipped wall times of one gap share it (and may share it with an occurrence at the end
of the gap, such as 03:00 of an hourly rule).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from engine.recurrence.schedule import Schedule
from engine.recurrence.transitions import transitions
from engine.recurrence.zones import GapMode, WallMapping


@dataclass(frozen=True)
class SkippedWall:
    """A wall time the schedule asked for that a DST gap removed, and when the clock jumped."""

    wall: datetime
    #: The jump (aware, in the schedule's zone).
    at: datetime


def skipped_walls(
    schedule: Schedule, after: datetime, until: datetime, limit: int
) -> list[SkippedWall]:
    """The first `limit` wall times of `schedule` skipped by a DST gap whose jump lies in
    (`after`, `until`], ascending.

    Empty at once unless the schedule drops nonexistent wall times (RRULE with dst_gap=skip,
    cron with a wildcard minute or hour): shifted and gap-end schedules skip nothing.
    """
    source: Any = schedule.source
    mapping: WallMapping | None = getattr(source, "mapping", None)
    walls_from: Callable[[datetime], Iterator[datetime]] | None = getattr(
        source, "walls_from", None
    )
    if mapping is None or walls_from is None or mapping.gap is not GapMode.SKIP:
        return []
    found: list[SkippedWall] = []
    for jump, first, end in _gaps(mapping, after, until):
        for wall in walls_from(first):
            if wall >= end:
                break
            if not mapping.instants(wall):
                found.append(SkippedWall(wall, jump))
                if len(found) == limit:
                    return found
    return found


def merged_walls(schedule: Schedule, after: datetime, until: datetime) -> list[SkippedWall]:
    """Wall times inside a DST gap whose shifted instant is one the schedule runs at anyway
    (an hourly 02:00 shifted to 03:00): they run once, at `at`, together with that one."""
    source: Any = schedule.source
    mapping: WallMapping | None = getattr(source, "mapping", None)
    walls_from = getattr(source, "walls_from", None)
    if mapping is None or walls_from is None or mapping.gap is not GapMode.SHIFT:
        return []
    found = []
    for _, first, end in _gaps(mapping, after, until):
        for wall in walls_from(first):
            if wall >= end:
                break
            at = mapping.instants(wall)[0]
            local = at.replace(tzinfo=None)
            if next(walls_from(local), None) == local:
                found.append(SkippedWall(wall, at))
    return found


def _gaps(
    mapping: WallMapping, after: datetime, until: datetime
) -> Iterator[tuple[datetime, datetime, datetime]]:
    """(jump, first missing wall time, first wall time after the gap) of each spring-forward
    jump in (after, until]."""
    for change in transitions(mapping.zone, after, until):
        if change.is_gap:
            yield change.at.astimezone(mapping.zone), change.wall_start, change.wall_end
