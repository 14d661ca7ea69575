"""How close together a schedule's runs come, checked against the tenant's minimum alike for
every spelling: `every 17s`, `FREQ=SECONDLY;INTERVAL=17` and a cron schedule with the same
closest gap get the same answer and the same message.

The closest gap is exact for a rule's times within one day (computed from its hour, minute and
second lists) and for RDATE lists; across days it is the smallest gap among the first
`SAMPLE` occurrences.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Iterator
from datetime import datetime
from itertools import islice, pairwise
from typing import TYPE_CHECKING

from engine.recurrence.coarse import CoarseBlocks
from engine.recurrence.errors import InvalidSchedule
from engine.recurrence.options import ScheduleLimits
from engine.recurrence.subdaily import SubDailyBlocks
from engine.recurrence.timeset import TimeSet
from engine.recurrence.wall_rule import WallRule

if TYPE_CHECKING:
    from engine.recurrence.recurrence import Recurrence

#: Occurrences sampled for gaps that cross days.
SAMPLE = 200
_HINT = "space the runs further apart, or ask the operator to lower this tenant's minimum"


def recurrence_gap_s(recurrence: Recurrence) -> float | None:
    """The closest two runs of the schedule come (see `cadence`)."""
    gaps = [_rule_gap_s(rule) for rule in recurrence.rules]
    gaps.append(sampled_gap_s(iter(recurrence.rdates), len(recurrence.rdates)))
    if len(recurrence.rules) + bool(recurrence.rdates) > 1:
        start = min([rule.first for rule in recurrence.rules] + list(recurrence.rdates[:1]))
        streams = [rule.walls_from(start) for rule in recurrence.rules]
        streams.append(iter(recurrence.rdates))
        gaps.append(sampled_gap_s(_distinct(heapq.merge(*streams))))
    return smallest(gaps)


def _rule_gap_s(rule: WallRule) -> float | None:
    blocks = rule.walker.blocks
    within = times_gap_s(blocks.times) if isinstance(blocks, CoarseBlocks) else None
    if isinstance(blocks, SubDailyBlocks):
        within = min((b - a for a, b in pairwise(blocks.offsets)), default=None)
    return smallest([within, sampled_gap_s(rule.walls_from(rule.first))])


def _distinct(walls: Iterator[datetime]) -> Iterator[datetime]:
    last = None
    for wall in walls:
        if wall != last:
            yield wall
        last = wall


def minimum_s(limits: ScheduleLimits) -> int:
    """The least gap this tenant may schedule: its min_interval_s, and a minute unless it may
    schedule sub-minute runs (allow_secondly)."""
    return max(limits.min_interval_s, 1 if limits.allow_secondly else 60)


def check_gap(text: str, gap_s: float | None, limits: ScheduleLimits) -> None:
    """InvalidSchedule, worded the same for every kind, when runs come closer than allowed."""
    least = minimum_s(limits)
    if gap_s is None or gap_s >= least:
        return
    quota = "min_interval_s" if least == limits.min_interval_s else "allow_secondly is off"
    reason = f"runs {gap_s:g} s apart at the closest; this tenant's minimum is {least} s ({quota})"
    raise InvalidSchedule(text, reason, hint=_HINT)


def sampled_gap_s(walls: Iterator[datetime], sample: int = SAMPLE) -> float | None:
    """The smallest gap between consecutive wall times among the first `sample`."""
    gaps = [(b - a).total_seconds() for a, b in pairwise(islice(walls, sample))]
    return min(gaps) if gaps else None


def times_gap_s(times: TimeSet) -> int | None:
    """The smallest gap between two times of one day of a product of hour, minute and second
    lists (consecutive values at each level, the finer levels at their extremes)."""
    spans = [_span(times.seconds), _span(times.minutes) * 60 + _span(times.seconds)]
    candidates = [_closest(times.seconds)]
    candidates.append(_less(_closest(times.minutes), 60, spans[0]))
    candidates.append(_less(_closest(times.hours), 3600, spans[1]))
    found = [gap for gap in candidates if gap is not None]
    return min(found) if found else None


def smallest(gaps: Iterable[float | None]) -> float | None:
    found = [gap for gap in gaps if gap is not None]
    return min(found) if found else None


def _closest(values: tuple[int, ...]) -> int | None:
    return min((b - a for a, b in pairwise(values)), default=None)


def _less(step: int | None, unit: int, inner_span: int) -> int | None:
    return None if step is None else step * unit - inner_span


def _span(values: tuple[int, ...]) -> int:
    return values[-1] - values[0]
