"""One step of a tenant loop: decide what to do with each due action, then in ONE transaction
claim those to run, finish those to skip or expire, record missed occurrences and insert each
rule's next occurrence (computed from the scheduled time, not from now)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncConnection

from engine.config import EngineConfig
from engine.domain.due import DueAction, Planned, RuleSnapshot
from engine.domain.notifications import POLICY_SKIPS, Notice, NotificationEvent, notice_payload
from engine.domain.occurrences import planned, rule_schedule
from engine.domain.policies import Circumstances, Decision, Verdict, decide
from engine.domain.records import ActionStatus, SkipReason
from engine.loop.chain import continue_chains
from engine.loop.tenant_state import TenantState
from engine.ops import metrics
from engine.recurrence import Schedule, ScheduleError
from engine.runs.runner import Claimed
from engine.store import loop_statements as queue
from engine.store import notification_outbox, outbox

Decided = tuple[DueAction, Decision]


@dataclass(frozen=True)
class StepResult:
    claimed: list[Claimed]
    #: Rules whose due action must wait for the rule's run in flight.
    deferred: set[str]
    finished: int
    #: Next occurrences inserted (they may be due before actions already read ahead).
    planned: int


def _schedule(rule: RuleSnapshot | None, horizon_years: int) -> Schedule | None:
    if rule is None:
        return None
    try:
        return rule_schedule(rule, horizon_years)
    except ScheduleError:
        return None


def decide_all(
    due: Sequence[DueAction], state: TenantState, now: datetime, config: EngineConfig
) -> list[Decided]:
    over_quota = state.is_over_quota()
    decided = []
    #: Rules with an action to run in this batch: a second one overlaps it like a run in flight.
    running: dict[str, datetime] = {}
    for action in due:
        rule_id = action.rule_id
        since = state.busy_since(rule_id) or (running.get(rule_id) if rule_id else None)
        c = Circumstances(now, since, over_quota, config.default_grace_s)
        decision = decide(action, _schedule(action.rule, config.horizon_years), c)
        if decision.verdict is Verdict.RUN and rule_id is not None:
            running.setdefault(rule_id, now)
        decided.append((action, decision))
    return decided


async def apply(
    conn: AsyncConnection,
    decided: Sequence[Decided],
    state: TenantState,
    now: datetime,
    config: EngineConfig,
) -> StepResult:
    """Write every decision of one step (the caller owns the transaction)."""
    by_verdict: dict[Verdict, list[Decided]] = defaultdict(list)
    for action, decision in decided:
        by_verdict[decision.verdict].append((action, decision))
    to_run = [action for action, _ in by_verdict[Verdict.RUN]]
    lease_s = config.lease_margin_s + max((a.timeout_ms_or_rule / 1000 for a in to_run), default=0)
    won = await queue.claim(conn, to_run, config.node_name, now, now + timedelta(seconds=lease_s))
    finished = await _finish(conn, by_verdict[Verdict.SKIP], ActionStatus.SKIPPED, now)
    expired = await _finish(conn, by_verdict[Verdict.EXPIRE], ActionStatus.EXPIRED, now)
    cancelled = await _finish(conn, by_verdict[Verdict.CANCEL], ActionStatus.CANCELLED, now)
    ended = won.keys() | finished | expired
    chained = [(a, d) for a, d in decided if a.id in ended]
    planned_count, missed = await _plan(conn, chained, now, config.horizon_years)
    ends = [(a, d) for a, d in decided if a.id in expired or _notified_skip(a.id, d, finished)]
    await _expiry_events(conn, [a for a, _ in ends if a.id in expired], now)
    notices = [_notice(a, d, now) for a, d in ends] + [_missed_notice(p, now) for p in missed]
    await notification_outbox.insert_notices(conn, notices)
    claimed = [Claimed(a, won[a.id], now) for a in to_run if a.id in won]
    deferred = {a.rule_id for a, _ in by_verdict[Verdict.DEFER] if a.rule_id is not None}
    return StepResult(claimed, deferred, len(finished | expired | cancelled), planned_count)


async def _plan(
    conn: AsyncConnection, chained: Sequence[Decided], now: datetime, horizon_years: int
) -> tuple[int, list[Planned]]:
    """Plan what follows the actions this step claimed or finished: each chained rule's next
    occurrence (with its DST gap traces) and the occurrences it missed; the number of next
    occurrences planned, and the misfire traces (the caller tells routes of them with the
    step's other skips, reading the routes once)."""
    finished = [a for a, _ in chained]
    live = await queue.live_rules(conn, finished)
    after = {a.id: (d.chain_from, d.chain_inclusive) for a, d in chained if d.chain_from}
    missed = _missed(chained, live)
    plans = await continue_chains(
        conn, finished, now, horizon_years, after=after, traces=missed, live=live
    )
    metrics.count_skips(SkipReason.MISFIRE, len(missed))
    return sum(1 for p in plans if p.reason is None), missed


def _missed(chained: Sequence[Decided], live: dict[str, RuleSnapshot]) -> list[Planned]:
    """Missed occurrences leave a trace: one skipped action each (reason misfire)."""
    traces = []
    for action, decision in chained:
        rule = live.get(action.rule_id or "")
        if rule is not None:
            traces += [planned(rule, at, SkipReason.MISFIRE) for at in decision.missed]
    return traces


async def _finish(
    conn: AsyncConnection, items: Sequence[Decided], status: ActionStatus, now: datetime
) -> set[int]:
    by_reason: dict[SkipReason | None, list[DueAction]] = defaultdict(list)
    for action, decision in items:
        by_reason[decision.reason].append(action)
    done: set[int] = set()
    for reason, due in by_reason.items():
        finished = await queue.finish_pending(conn, due, status, reason, now)
        metrics.count_skips(reason, len(finished))
        done |= finished
    return done


async def _expiry_events(
    conn: AsyncConnection, expired: Sequence[DueAction], now: datetime
) -> None:
    await outbox.insert_events(conn, [_expired_event(a, now) for a in expired])


def _notified_skip(action_id: int, decision: Decision, finished: set[int]) -> bool:
    return action_id in finished and decision.reason in POLICY_SKIPS


def _notice(action: DueAction, decision: Decision, now: datetime) -> Notice:
    """A skip by a policy or an expiry, as routes are told of it."""
    expired = decision.verdict is Verdict.EXPIRE
    event = NotificationEvent.EXPIRED if expired else NotificationEvent.SKIPPED
    reason = None if expired else decision.reason
    payload = notice_payload(action.rule, action.scheduled_at, reason)
    return Notice(action.tenant_id, event, action.rule_id, now, payload, action.id)


def _missed_notice(trace: Planned, now: datetime) -> Notice:
    payload = notice_payload(trace.rule, trace.scheduled_at, SkipReason.MISFIRE)
    rule = trace.rule
    return Notice(rule.tenant_id, NotificationEvent.SKIPPED, rule.id, now, payload)


def _expired_event(action: DueAction, now: datetime) -> outbox.NewEvent:
    payload = {
        "action_id": action.id,
        "rule_id": action.rule_id,
        "scheduled_at": action.scheduled_at.isoformat(),
        "due_at": action.due_at.isoformat(),
    }
    return outbox.NewEvent(
        action.tenant_id, "action.expired", payload, "engine", now, action.rule_id, action.id
    )
