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
    walls_from: WallSource, mapping: WallMapping, instant: datetime
) -> Iterator[Occurrence]:
    """Occurrences strictly after `instant`, ascending, each instant once."""
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
        for at in mapping.instants(wall):
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
