"""Misfire, grace, overlap, quota and retry decisions: pure functions over a due action.

Timeline of one occurrence (due at D, its grace G, now N):

    D ........ D+G ........ N
    |  on time  |   late    |   N - D <= G: run;  N - D > G: expired (run_all) or skipped
                                 (skip), and run_latest runs only the latest missed one.

Only a rule's own occurrences (its chain) and only their first attempt are subject to misfire
and grace: a retry, a trigger, a backfill or a one-off runs whenever it comes due.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any

from engine.occurrences import next_occurrence
from engine.records import MisfirePolicy, OverlapPolicy, SkipReason
from engine.recurrence import Schedule
from engine.store.queue import is_chain, was_claimed

#: Missed occurrences recorded one by one (as skipped actions) per catch-up; beyond this the
#: timeline shows them as `missed`.
MAX_RECORDED_MISSES = 100


class Verdict(StrEnum):
    RUN = "run"
    """Claim it and run it now."""
    SKIP = "skip"
    """Finish it as skipped, with a reason."""
    EXPIRE = "expire"
    """Finish it as expired (past its grace) and emit `action.expired`."""
    DEFER = "defer"
    """Leave it pending: the rule's previous run must end first."""
    CANCEL = "cancel"
    """Finish it as cancelled: its rule changed or went since it was planned."""


@dataclass(frozen=True)
class Decision:
    verdict: Verdict
    reason: SkipReason | None = None
    #: Where the rule's chain continues: strictly after this instant, or at it when inclusive.
    chain_from: datetime | None = None
    chain_inclusive: bool = False
    #: Missed occurrences to record as skipped (reason misfire).
    missed: tuple[datetime, ...] = field(default=())


@dataclass(frozen=True)
class Circumstances:
    """What the loop knows besides the action: the time, the rule's run in flight, the quota."""

    now: datetime
    #: When this node claimed the rule's run still in flight (None: no run in flight).
    busy_since: datetime | None
    over_quota: bool
    default_grace_s: float


def decide(action: Mapping[str, Any], schedule: Schedule | None, c: Circumstances) -> Decision:
    """What to do with one due pending action."""
    outdated = _outdated(action)
    if outdated is not None:
        return outdated
    if action["expires_at"] is not None and c.now > action["expires_at"]:
        return Decision(Verdict.EXPIRE, SkipReason.EXPIRES_AT)
    if is_chain(action) and not was_claimed(action) and schedule is not None:
        missed = _misfire(action, schedule, c)
        if missed is not None:
            return missed
    if c.over_quota:
        return Decision(Verdict.SKIP, SkipReason.QUOTA)
    if c.busy_since is None:
        return Decision(Verdict.RUN)
    overlap = OverlapPolicy(action["r_overlap_policy"] or OverlapPolicy.ALLOW)
    if overlap is OverlapPolicy.ALLOW:
        return Decision(Verdict.RUN)
    if c.busy_since > action["due_at"] or overlap is OverlapPolicy.QUEUE_ONE:
        # The run in flight started after this one was due (a catch-up): wait for it.
        return Decision(Verdict.DEFER)
    return Decision(Verdict.SKIP, SkipReason.OVERLAP)


def _outdated(action: Mapping[str, Any]) -> Decision | None:
    """An action of a rule that changed, went or paused since it was planned. A change
    finishes such actions itself; these are the ones pending again afterwards (a retry, a
    claim given back or taken back), which must not run the rule's new code, or run at all
    while it is paused."""
    if action["rule_id"] is None:
        return None
    if action["r_deleted_at"] is not None:
        return Decision(Verdict.CANCEL, SkipReason.RULE_DELETED)
    if action["rule_version"] != action["r_version"]:
        return Decision(Verdict.CANCEL, SkipReason.RULE_CHANGED)
    if is_chain(action) and not action["r_enabled"]:
        return Decision(Verdict.SKIP, SkipReason.PAUSED)
    return None


def _misfire(action: Mapping[str, Any], schedule: Schedule, c: Circumstances) -> Decision | None:
    policy = MisfirePolicy(action["r_misfire_policy"])
    grace_s = action["r_misfire_grace_s"]
    late_s = (c.now - action["due_at"]).total_seconds()
    rule = _rule_view(action)
    if policy is MisfirePolicy.RUN_LATEST:
        later = _missed_after(schedule, rule, action["scheduled_at"], c.now)
        if later:
            return Decision(
                Verdict.SKIP,
                SkipReason.MISFIRE,
                chain_from=later[-1],
                chain_inclusive=True,
                missed=tuple(later[:-1][:MAX_RECORDED_MISSES]),
            )
    elif policy is MisfirePolicy.SKIP:
        tolerance_s = c.default_grace_s if grace_s is None else grace_s
        if late_s > tolerance_s:
            later = _missed_after(schedule, rule, action["scheduled_at"], c.now)
            return Decision(
                Verdict.SKIP,
                SkipReason.MISFIRE,
                chain_from=c.now,
                missed=tuple(later[:MAX_RECORDED_MISSES]),
            )
    if grace_s is not None and late_s > grace_s:
        return Decision(Verdict.EXPIRE, SkipReason.GRACE)
    return None


def _rule_view(action: Mapping[str, Any]) -> dict[str, Any]:
    return {"start_at": action["r_start_at"], "end_at": action["r_end_at"]}


def _missed_after(
    schedule: Schedule, rule: Mapping[str, Any], after: datetime, now: datetime
) -> list[datetime]:
    """Occurrences in (after, now], the first MAX_RECORDED_MISSES and always the latest."""
    found: list[datetime] = []
    at = after
    while len(found) < MAX_RECORDED_MISSES:
        nxt = next_occurrence(schedule, rule, at)
        if nxt is None or nxt > now:
            return found
        found.append(nxt)
        at = nxt
    latest = _latest_at_or_before(schedule, rule, at, now)
    return found + ([latest] if latest is not None and latest > found[-1] else [])


def _latest_at_or_before(
    schedule: Schedule, rule: Mapping[str, Any], low: datetime, now: datetime
) -> datetime | None:
    """The last occurrence in (low, now], searched backwards from now in growing windows."""
    for window in (timedelta(hours=1), timedelta(days=1), timedelta(days=31), timedelta(days=3660)):
        start = max(low, now - window)
        found = None
        at = start
        for _ in range(10_000):
            nxt = next_occurrence(schedule, rule, at)
            if nxt is None or nxt > now:
                break
            found, at = nxt, nxt
        if found is not None or start == low:
            return found
    return None


def retry_delay(attempt: int, backoff_s: float, backoff_max_s: float) -> timedelta:
    """Exponential backoff from `backoff_s`, capped at `backoff_max_s`, with "equal jitter"
    (half fixed, half random) so retries of many actions do not fire in lockstep."""
    capped_s = min(backoff_max_s, backoff_s * 2 ** max(attempt - 1, 0))
    return timedelta(seconds=capped_s / 2 + random.uniform(0, capped_s / 2))
