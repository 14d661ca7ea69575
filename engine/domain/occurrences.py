"""A rule's occurrences as actions: when the next one is, when it is due, what it is called,
and what a step of its chain plans (the store writes the plans; it decides none of them)."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Protocol

from engine.domain.due import DueAction, Planned, RuleSnapshot
from engine.domain.records import SkipReason
from engine.domain.rule_schedules import compile_schedule, evaluation_limits
from engine.recurrence import Schedule
from engine.recurrence.gaps import skipped_walls

_EPSILON = timedelta(microseconds=1)
#: Wall times skipped by DST gaps recorded (as skipped actions) per step of a rule's chain.
MAX_GAP_TRACES = 100
#: Occurrences of a pause recorded (as skipped actions) when the rule resumes: the first ones
#: after the pause; the timeline shows any later ones as `missed`.
MAX_PAUSED_TRACES = 100


class Window(Protocol):
    """A rule's start/end window (a snapshot, or a rule being written)."""

    @property
    def start_at(self) -> datetime | None: ...
    @property
    def end_at(self) -> datetime | None: ...


def rule_schedule(rule: RuleSnapshot, horizon_years: int) -> Schedule:
    """The stored rule's schedule (it was validated when saved); its horizon counts from the
    rule's creation."""
    return compile_schedule(
        rule.schedule,
        rule.timezone,
        rule.anchor,
        rule.dst_gap,
        rule.dst_repeat,
        evaluation_limits(horizon_years),
        since=rule.created_at,
    ).with_calendars(rule.calendars)


def next_occurrence(
    schedule: Schedule, rule: Window, after: datetime, *, inclusive: bool = False
) -> datetime | None:
    """The rule's first occurrence after `after` (or at it), inside its start/end window."""
    start_at = rule.start_at
    if start_at is not None and start_at > after:
        after, inclusive = start_at, True
    found = schedule.next_after(after - _EPSILON if inclusive else after)
    if found is None:
        return None
    found = found.astimezone(UTC)
    end_at = rule.end_at
    return None if end_at is not None and found > end_at else found


def due_at(rule_id: str, scheduled_at: datetime, jitter_s: int) -> datetime:
    """The scheduled time plus the rule's jitter, the same on every node and every retry."""
    if not jitter_s:
        return scheduled_at
    digest = hashlib.sha256(f"{rule_id}@{scheduled_at.isoformat()}".encode()).digest()
    offset_ms = int.from_bytes(digest[:8], "big") % (jitter_s * 1000)
    return scheduled_at + timedelta(milliseconds=offset_ms)


def occurrence_id(rule_id: str | None, action_id: int, scheduled_at: datetime) -> str:
    """Stable across retries: the rule and its nominal time, or the one-off action's id."""
    if rule_id is None:
        return f"action:{action_id}"
    return f"{rule_id}@{scheduled_at.astimezone(UTC).strftime('%Y-%m-%dT%H:%M:%S.%fZ')}"


def planned(
    rule: RuleSnapshot, scheduled_at: datetime, reason: SkipReason | None = None
) -> Planned:
    """One occurrence of `rule`: to run (pending), or with `reason` a trace of one that won't."""
    return Planned(rule, scheduled_at, due_at(rule.id, scheduled_at, rule.jitter_s), reason)


def gap_traces(
    schedule: Schedule, rule: RuleSnapshot, after: datetime, until: datetime | None
) -> list[Planned]:
    """Traces (reason dst_gap) of the rule's wall times a DST gap skips between its occurrence
    at `after` and its next one at `until` (None: the chain ends, so up to the series' end).

    Each is scheduled at the instant the clock jumped over its wall time (see
    `engine.recurrence.gaps`): that is when the occurrence became impossible, and it lies
    between the occurrences before and after the gap. Only jumps inside the rule's start/end
    window count. At most MAX_GAP_TRACES per call.
    """
    if rule.start_at is not None and rule.start_at > after:
        after = rule.start_at - _EPSILON
    ends = (until, rule.end_at, schedule.source.ends)
    end = min((at for at in ends if at is not None), default=None)
    if end is None:
        return []
    return [
        planned(rule, skipped.at.astimezone(UTC), SkipReason.DST_GAP)
        for skipped in skipped_walls(schedule, after, end, MAX_GAP_TRACES)
    ]


def paused_traces(
    schedule: Schedule,
    rule: RuleSnapshot,
    paused_at: datetime,
    now: datetime,
    traced: set[datetime],
) -> list[Planned]:
    """Traces (reason paused) of the rule's occurrences in (`paused_at`, `now`], the time it
    was paused until it resumed at `now`, except at the instants in `traced` (the pending
    occurrence that the pause itself finished). At most MAX_PAUSED_TRACES, the earliest.

    An occurrence at `now` itself is one: planning from now starts strictly after it.
    """
    traces: list[Planned] = []
    after = paused_at
    while len(traces) < MAX_PAUSED_TRACES:
        found = next_occurrence(schedule, rule, after)
        if found is None or found > now:
            break
        if found not in traced:
            traces.append(planned(rule, found, SkipReason.PAUSED))
        after = found
    return traces


def upcoming(schedule: Schedule, rule: Window, after: datetime, count: int) -> list[datetime]:
    """The rule's next `count` occurrences after `after` (fewer when the series ends)."""
    found: list[datetime] = []
    while len(found) < count:
        nxt = next_occurrence(schedule, rule, after)
        if nxt is None:
            break
        found.append(nxt)
        after = nxt
    return found


def plan_chain(
    finished: Sequence[DueAction],
    live: Mapping[str, RuleSnapshot],
    horizon_years: int,
    after: Mapping[int, tuple[datetime, bool]] | None = None,
) -> list[Planned]:
    """The next occurrence of each finished chained action's rule (`live`: the rules as they
    are now, by id; a rule that changed since is not there), and a skipped trace (reason
    dst_gap) of each wall time a DST gap removes in between.

    The next occurrence is computed from the action's scheduled time, not from now, unless
    `after` gives another starting instant (and whether it is inclusive) for that action id.
    Gap traces always start at the scheduled time. Only an action read before its first claim
    plans: a retry, or an action given back or returned to pending, planned its next occurrence
    when it was first claimed.
    """
    plans: list[Planned] = []
    for action in finished:
        rule = live.get(action.rule_id or "")
        if rule is None or not action.is_chain or action.was_claimed:
            continue
        start, inclusive = (after or {}).get(action.id, (action.scheduled_at, False))
        schedule = rule_schedule(rule, horizon_years)
        found = next_occurrence(schedule, rule, start, inclusive=inclusive)
        plans += gap_traces(schedule, rule, action.scheduled_at, found)
        if found is not None:
            plans.append(planned(rule, found))
    return plans
