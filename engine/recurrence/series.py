"""From an ascending stream of wall times to an ascending stream of instants.

DST makes the mapping non-monotonic (a shifted 02:30 lands after a real 03:10), so instants are
held in a small heap until no later wall time can produce an earlier instant; instants that
coincide after shifting are kept once.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime

from engine.recurrence.errors import EvaluationBudgetExceeded
from engine.recurrence.zones import WallMapping

#: Wall times examined per produced instant before evaluation is abandoned.
STEP_BUDGET = 100_000


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
    heap: list[tuple[datetime, datetime]] = []
    last: datetime | None = None
    steps = 0
    for wall in walls_from(mapping.wall_floor(after)):
        floor = mapping.instant_floor(wall)
        while heap and heap[0][0] < floor:
            at, source = heapq.heappop(heap)
            if at != last:
                last, steps = at, 0
                yield Occurrence(at.astimezone(mapping.zone), source)
        instants = mapping.instants(wall)
        if cut is not None and wall == cut[0]:
            instants = instants[: cut[1]]
        for at in instants:
            if at > after:
                heapq.heappush(heap, (at.astimezone(UTC), wall))
        steps += 1
        if steps > STEP_BUDGET:
            raise EvaluationBudgetExceeded(f"no occurrence within {STEP_BUDGET} candidate times")
    while heap:
        at, source = heapq.heappop(heap)
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
