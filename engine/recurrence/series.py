"""From an ascending stream of wall times to an ascending stream of instants.

Between two offset changes of the zone (most of the time, and always in UTC) a wall time is one
instant at the zone's offset, in order, so it is converted by a subtraction. Near a change DST
makes the mapping non-monotonic (a shifted 02:30 lands after a real 03:10), so there instants
are held in a small heap until no later wall time can produce an earlier instant; instants that
coincide after shifting are kept once.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo
from functools import lru_cache

from engine.recurrence.errors import EvaluationBudgetExceeded
from engine.recurrence.transitions import transitions
from engine.recurrence.zones import WallMapping

#: Wall times examined per produced instant before evaluation is abandoned.
STEP_BUDGET = 100_000
#: Wall times within this of an offset change go through the general mapping.
_MARGIN = timedelta(days=2)
_LOOKAHEAD = timedelta(days=366)
_TICK = timedelta(microseconds=1)
#: The last calm stretch (start, offset, end) found per zone.
_CALM: dict[tzinfo, tuple[datetime, timedelta, datetime]] = {}


@dataclass(frozen=True)
class Occurrence:
    """An instant (aware, in the schedule's zone) and the wall time the rule asked for."""

    at: datetime
    wall: datetime


WallSource = Callable[[datetime], Iterator[datetime]]


def occurrences_after(
    walls_from: WallSource,
    mapping: WallMapping,
    instant: datetime,
    cut: tuple[datetime, int] | None = None,
) -> Iterator[Occurrence]:
    """Occurrences strictly after `instant`, ascending, each instant once. `cut` = (wall, k):
    of that wall time's instants only the first k run (a COUNT that ends inside a repeat)."""
    after = instant.astimezone(UTC)
    offset, calm_until = calm(mapping.zone, after)
    if calm_until > after:
        last = after
        for wall in walls_from((after + offset).replace(tzinfo=None) + _TICK):
            at = (wall - offset).replace(tzinfo=UTC)
            if at >= calm_until or (cut is not None and wall == cut[0]):
                break
            if at > after:
                last = at
                yield Occurrence(at.astimezone(mapping.zone), wall)
        else:
            return
        after = last
    yield from _near_changes(walls_from, mapping, after, cut)


def calm(zone: tzinfo, instant: datetime) -> tuple[timedelta, datetime]:
    """The zone's offset at `instant` and how long wall times keep mapping to instants by it:
    until two days before its next change (a year ahead when none comes sooner). The last
    calm stretch of each zone is remembered, so a schedule walking forward asks once."""
    known = _CALM.get(zone)
    if known is not None and known[0] <= instant < known[2]:
        return known[1], known[2]
    start = instant.replace(minute=0, second=0, microsecond=0)
    offset, until = _calm(zone, start)
    if until > start:
        _CALM[zone] = (start, offset, until)
    return offset, until


@lru_cache(maxsize=4096)
def _calm(zone: tzinfo, hour: datetime) -> tuple[timedelta, datetime]:
    try:
        offset = hour.astimezone(zone).utcoffset() or timedelta(0)
        if transitions(zone, hour - _MARGIN, hour + _MARGIN):
            return offset, hour
        upcoming = transitions(zone, hour, hour + _LOOKAHEAD)
        return offset, upcoming[0].at - _MARGIN if upcoming else hour + _LOOKAHEAD
    except OverflowError:  # the edges of the calendar: always the general mapping
        return timedelta(0), hour


def _near_changes(
    walls_from: WallSource, mapping: WallMapping, after: datetime, cut: tuple[datetime, int] | None
) -> Iterator[Occurrence]:
    """The general mapping (see the module docstring)."""
    heap: list[tuple[datetime, bool, datetime]] = []
    last: datetime | None = None
    steps = 0
    for wall in walls_from(mapping.wall_floor(after)):
        instants = mapping.instants(wall)
        if heap:
            # a wall time that runs at its own instant bounds every later one's (only a time
            # shifted out of a gap can run after later wall times)
            own = instants and instants[0].replace(tzinfo=None) == wall
            floor = instants[0].astimezone(UTC) if own else mapping.instant_floor(wall)
            while heap and heap[0][0] < floor:
                at, _, source = heapq.heappop(heap)
                if at != last:
                    last, steps = at, 0
                    yield Occurrence(at.astimezone(mapping.zone), source)
        if cut is not None and wall == cut[0]:
            instants = instants[: cut[1]]
        for at in instants:
            if at > after:  # a wall time that runs at its own time wins a tie with a shifted one
                shifted = at.replace(tzinfo=None) != wall
                heapq.heappush(heap, (at.astimezone(UTC), shifted, wall))
        steps += 1
        if steps > STEP_BUDGET:
            raise EvaluationBudgetExceeded(f"no occurrence within {STEP_BUDGET} candidate times")
    while heap:
        at, _, source = heapq.heappop(heap)
        if at != last:
            last = at
            yield Occurrence(at.astimezone(mapping.zone), source)


def merged(streams: list[Iterator[Occurrence]]) -> Iterator[Occurrence]:
    """Several ascending occurrence streams as one, each instant once (the first source's)."""
    if len(streams) == 1:
        yield from streams[0]
        return
    last: datetime | None = None
    for occurrence in heapq.merge(*streams, key=lambda o: o.at.astimezone(UTC)):
        at = occurrence.at.astimezone(UTC)
        if at != last:
            last = at
            yield occurrence
