"""COUNT counts runs, not wall times (RFC 5545 §3.3.5 and §3.3.10 read together).

Across a DST change one wall time may run once at a shifted instant (counted once), not at all
(`dst_gap=skip`: not counted), twice (`dst_repeat=both`: counted twice), or at the instant of
another wall time (a shifted 02:00 is 03:00: one run, one count). Only wall times near a change
can do any of this, so COUNT is first resolved on wall times and then moved by what the changes
inside the series did, change by change, until the COUNT-th run is found.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

from engine.recurrence.transitions import Transition, transitions
from engine.recurrence.wall_rule import EndsBy, WallRule
from engine.recurrence.zones import WallMapping

_MARGIN = timedelta(days=2)
_TICK = timedelta(seconds=1)


def count_runs(rule: WallRule, mapping: WallMapping) -> WallRule:
    """`rule` ending at its COUNT-th run under `mapping` (unchanged unless it has a COUNT)."""
    if rule.ends_by is not EndsBy.COUNT or rule.count is None:
        return rule
    target, walls = rule.count, rule.count
    events: list[tuple[datetime, int]] = []
    scanned = rule.dtstart - _TICK
    while True:
        end = rule.walker.nth(walls)
        if end is None:
            return rule  # the calendar ends first: keep the wall-time count
        events += _events(rule, mapping, scanned, end)
        runs = walls + sum(runs - 1 for _, runs in events)
        if runs >= target:
            return _locate(rule, events, target)
        scanned, walls = end, walls + target - runs


def _locate(rule: WallRule, events: list[tuple[datetime, int]], target: int) -> WallRule:
    """The rule ending at its target-th run, given the wall times that ran other than once."""
    extra = 0
    for wall, runs in events:
        before = rule.walker.count(wall) - 1 + extra
        if target <= before:
            break
        if target <= before + runs:
            kept = target - before
            return rule.with_last(wall, kept if kept < runs else None)
        extra += runs - 1
    last = rule.walker.nth(target - extra)
    return rule.with_last(last, None) if last is not None else rule


def _events(
    rule: WallRule, mapping: WallMapping, after: datetime, upto: datetime
) -> list[tuple[datetime, int]]:
    """(wall time, runs it adds) for the rule's wall times in (after, upto] that DST makes run
    other than once."""
    events = []
    span = (after - _MARGIN).replace(tzinfo=UTC), (upto + _MARGIN).replace(tzinfo=UTC)
    for change in transitions(mapping.zone, *span):
        for wall, runs in _window_runs(rule, mapping, change):
            if after < wall <= upto and runs != 1:
                events.append((wall, runs))
    return events


def _window_runs(
    rule: WallRule, mapping: WallMapping, change: Transition
) -> Iterator[tuple[datetime, int]]:
    """Each wall time the change can touch, with the new instants it adds: the skipped or
    repeated ones, and after a gap those whose instant a shifted one already took."""
    low = change.wall_start
    high = change.wall_end + (change.shift if change.is_gap else timedelta(0))
    if not _may_hold_walls(rule, low, high):
        return
    seen: set[datetime] = set()
    for wall in rule.walker.walls_from(low):
        if wall >= high:
            return
        instants = {at.astimezone(UTC) for at in mapping.instants(wall)}
        yield wall, len(instants - seen)
        seen |= instants


def _may_hold_walls(rule: WallRule, low: datetime, high: datetime) -> bool:
    """Cheap test before asking the walker: is any day of [low, high) kept by the day parts?"""
    days = rule.walker.blocks.days  # type: ignore[attr-defined]
    return any(days.is_kept(day) for day in range(low.toordinal(), high.toordinal() + 1))
