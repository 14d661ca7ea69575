"""A rule's occurrences as actions: when the next one is, when it is due, what it is called."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from engine.records import SkipReason
from engine.recurrence import Schedule
from engine.recurrence.gaps import skipped_walls
from engine.schedules import compile_schedule, evaluation_limits

_EPSILON = timedelta(microseconds=1)
#: Wall times skipped by DST gaps recorded (as skipped actions) per step of a rule's chain.
MAX_GAP_TRACES = 100
#: Occurrences of a pause recorded (as skipped actions) when the rule resumes: the first ones
#: after the pause; the timeline shows any later ones as `missed`.
MAX_PAUSED_TRACES = 100


def rule_anchor(rule: Mapping[str, Any]) -> datetime:
    """What an anchored schedule (`every 15m`) counts from: start_at, else creation time."""
    return rule["start_at"] or rule["created_at"]


def rule_schedule(rule: Mapping[str, Any], horizon_years: int) -> Schedule:
    """The stored rule's schedule (it was validated when saved); its horizon counts from the
    rule's creation."""
    return compile_schedule(
        rule["schedule"],
        rule["timezone"],
        rule_anchor(rule),
        rule["dst_gap"],
        rule["dst_repeat"],
        evaluation_limits(horizon_years),
        since=rule["created_at"],
    )


def next_occurrence(
    schedule: Schedule, rule: Mapping[str, Any], after: datetime, *, inclusive: bool = False
) -> datetime | None:
    """The rule's first occurrence after `after` (or at it), inside its start/end window."""
    start_at = rule["start_at"]
    if start_at is not None and start_at > after:
        after, inclusive = start_at, True
    found = schedule.next_after(after - _EPSILON if inclusive else after)
    if found is None:
        return None
    found = found.astimezone(UTC)
    end_at = rule["end_at"]
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


def occurrence_row(
    rule: Mapping[str, Any], scheduled_at: datetime, now: datetime, **extra: Any
) -> dict[str, Any]:
    """The values of a new pending action for one occurrence of `rule`."""
    return {
        "tenant_id": rule["tenant_id"],
        "rule_id": rule["id"],
        "rule_version": rule["version"],
        "scheduled_at": scheduled_at,
        "due_at": due_at(rule["id"], scheduled_at, rule["jitter_s"]),
        "status": "pending",
        "attempt": 0,
        "max_attempts": rule["max_attempts"],
        "priority": rule["priority"],
        "created_at": now,
    } | extra


def skipped_row(
    rule: Mapping[str, Any], scheduled_at: datetime, reason: SkipReason, now: datetime
) -> dict[str, Any]:
    """A finished action for an occurrence of `rule` that will not run: its trace."""
    return occurrence_row(rule, scheduled_at, now, status="skipped", reason=reason, finished_at=now)


def gap_traces(
    schedule: Schedule,
    rule: Mapping[str, Any],
    after: datetime,
    until: datetime | None,
    now: datetime,
) -> list[dict[str, Any]]:
    """Traces (reason dst_gap) of the rule's wall times a DST gap skips between its occurrence
    at `after` and its next one at `until` (None: the chain ends, so up to the series' end).

    Each is scheduled at the instant the clock jumped over its wall time (see
    `engine.recurrence.gaps`): that is when the occurrence became impossible, and it lies
    between the occurrences before and after the gap. Only jumps inside the rule's start/end
    window count. At most MAX_GAP_TRACES per call.
    """
    start_at = rule["start_at"]
    if start_at is not None and start_at > after:
        after = start_at - _EPSILON
    ends = (until, rule["end_at"], schedule.source.ends)
    end = min((at for at in ends if at is not None), default=None)
    if end is None:
        return []
    return [
        skipped_row(rule, skipped.at.astimezone(UTC), SkipReason.DST_GAP, now)
        for skipped in skipped_walls(schedule, after, end, MAX_GAP_TRACES)
    ]


def paused_traces(
    schedule: Schedule,
    rule: Mapping[str, Any],
    paused_at: datetime,
    now: datetime,
    traced: set[datetime],
) -> list[dict[str, Any]]:
    """Traces (reason paused) of the rule's occurrences in (`paused_at`, `now`], the time it
    was paused until it resumed at `now`, except at the instants in `traced` (the pending
    occurrence that the pause itself finished). At most MAX_PAUSED_TRACES, the earliest.

    An occurrence at `now` itself is one: planning from now starts strictly after it.
    """
    rows: list[dict[str, Any]] = []
    after = paused_at
    while len(rows) < MAX_PAUSED_TRACES:
        found = next_occurrence(schedule, rule, after)
        if found is None or found > now:
            break
        if found not in traced:
            rows.append(skipped_row(rule, found, SkipReason.PAUSED, now))
        after = found
    return rows


def upcoming(
    schedule: Schedule, rule: Mapping[str, Any], after: datetime, count: int
) -> list[datetime]:
    """The rule's next `count` occurrences after `after` (fewer when the series ends)."""
    found: list[datetime] = []
    while len(found) < count:
        nxt = next_occurrence(schedule, rule, after)
        if nxt is None:
            break
        found.append(nxt)
        after = nxt
    return found
