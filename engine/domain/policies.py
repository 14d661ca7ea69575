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
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import StrEnum

from engine.domain.due import DueAction, RuleSnapshot
from engine.domain.occurrences import Window, next_occurrence
from engine.domain.records import MisfirePolicy, OverlapPolicy, SkipReason
from engine.recurrence import Schedule

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


def decide(action: DueAction, schedule: Schedule | None, c: Circumstances) -> Decision:
    """What to do with one due pending action."""
    rule = action.rule
    outdated = _outdated(action, rule)
    if outdated is not None:
        return outdated
    if action.expires_at is not None and c.now > action.expires_at:
        return Decision(Verdict.EXPIRE, SkipReason.EXPIRES_AT)
    if rule is not None and action.is_chain and not action.was_claimed and schedule is not None:
        missed = _misfire(action, rule, schedule, c)
        if missed is not None:
            return missed
    if c.over_quota:
        return Decision(Verdict.SKIP, SkipReason.QUOTA)
    if c.busy_since is None:
        return Decision(Verdict.RUN)
    overlap = rule.overlap_policy if rule is not None else OverlapPolicy.ALLOW
    if overlap is OverlapPolicy.ALLOW:
        return Decision(Verdict.RUN)
    if c.busy_since > action.due_at or overlap is OverlapPolicy.QUEUE_ONE:
        # The run in flight started after this one was due (a catch-up): wait for it.
        return Decision(Verdict.DEFER)
    return Decision(Verdict.SKIP, SkipReason.OVERLAP)


def _outdated(action: DueAction, rule: RuleSnapshot | None) -> Decision | None:
    """An action of a rule that changed, went or paused since it was planned. A change
    finishes such actions itself; these are the ones pending again afterwards (a retry, a
    claim given back or taken back), which must not run the rule's new code, or run at all
    while it is paused."""
    if action.rule_id is None:
        return None
    if rule is not None and rule.deleted_at is not None:
        return Decision(Verdict.CANCEL, SkipReason.RULE_DELETED)
    if rule is None or action.rule_version != rule.version:
        return Decision(Verdict.CANCEL, SkipReason.RULE_CHANGED)
    if action.is_chain and not rule.enabled:
        return Decision(Verdict.SKIP, SkipReason.PAUSED)
    return None


def _misfire(
    action: DueAction, rule: RuleSnapshot, schedule: Schedule, c: Circumstances
) -> Decision | None:
    policy = rule.misfire_policy
    grace_s = rule.misfire_grace_s
    late_s = (c.now - action.due_at).total_seconds()
    if policy is MisfirePolicy.RUN_LATEST:
        later = _missed_after(schedule, rule, action.scheduled_at, c.now)
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
            later = _missed_after(schedule, rule, action.scheduled_at, c.now)
            return Decision(
                Verdict.SKIP,
                SkipReason.MISFIRE,
                chain_from=c.now,
                missed=tuple(later[:MAX_RECORDED_MISSES]),
            )
    if grace_s is not None and late_s > grace_s:
        return Decision(Verdict.EXPIRE, SkipReason.GRACE)
    return None


def _missed_after(
    schedule: Schedule, rule: Window, after: datetime, now: datetime
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
    schedule: Schedule, rule: Window, low: datetime, now: datetime
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
