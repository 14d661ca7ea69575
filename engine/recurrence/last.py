"""The last instant of an RFC 5545 schedule: where its preview says it ends.

It is the last wall time that runs (not an EXDATE, not dropped in a DST gap), unless a wall
time shortly before it was shifted later by a spring-forward gap (02:30 runs at 03:30, after
a real 03:10), so the few wall times inside a gap near the end are looked at too.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from engine.recurrence.parts import RecurrenceParts
from engine.recurrence.transitions import transitions
from engine.recurrence.wall_rule import WallRule

_NEAR = timedelta(days=2)


def last_instant(recurrence: RecurrenceParts) -> datetime | None:
    """The latest instant any rule or RDATE of `recurrence` runs at, or None."""
    found = [_last_of(recurrence, rule) for rule in recurrence.rules] + [_last_rdate(recurrence)]
    instants = [at for at in found if at is not None]
    return max(instants, key=lambda at: at.astimezone(UTC)) if instants else None


def _last_of(recurrence: RecurrenceParts, rule: WallRule) -> datetime | None:
    for wall in rule.walls_back(rule.last):
        instants = _instants(recurrence, rule, wall)
        if instants:
            return max([*instants, *_shifted_before(recurrence, rule, wall)], key=_utc)
    return None


def _shifted_before(recurrence: RecurrenceParts, rule: WallRule, wall: datetime) -> list[datetime]:
    """Instants of the rule's wall times inside a gap shortly before `wall` (they may run
    after it)."""
    zone = recurrence.mapping.zone
    span = wall.replace(tzinfo=UTC) - _NEAR, wall.replace(tzinfo=UTC) + _NEAR
    found: list[datetime] = []
    for change in transitions(zone, *span):
        if not change.is_gap or change.wall_start > wall:
            continue
        for inside in rule.walls_from(change.wall_start):
            if inside >= min(change.wall_end, wall):
                break
            found += _instants(recurrence, rule, inside)
    return found


def _instants(recurrence: RecurrenceParts, rule: WallRule, wall: datetime) -> list[datetime]:
    if wall in recurrence.exdates:
        return []
    instants = list(recurrence.mapping.instants(wall))
    if wall == rule.last and rule.last_runs is not None:
        instants = instants[: rule.last_runs]
    return instants


def _last_rdate(recurrence: RecurrenceParts) -> datetime | None:
    for wall in reversed(recurrence.rdates):
        if wall not in recurrence.exdates and (found := recurrence.mapping.instants(wall)):
            return found[-1]
    return None


def _utc(instant: datetime) -> datetime:
    return instant.astimezone(UTC)
