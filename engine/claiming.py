"""One step of a tenant loop: decide what to do with each due action, then in ONE transaction
claim those to run, finish those to skip or expire, record missed occurrences and insert each
rule's next occurrence (computed from the scheduled time, not from now)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.engine import RowMapping
from sqlalchemy.ext.asyncio import AsyncConnection

from engine import metrics
from engine.config import EngineConfig
from engine.occurrences import rule_schedule, skipped_row
from engine.policies import Circumstances, Decision, Verdict, decide
from engine.records import SkipReason
from engine.recurrence import Schedule, ScheduleError
from engine.runner import Claimed
from engine.store import outbox, queue
from engine.store.tables import actions
from engine.tenant_state import TenantState


@dataclass(frozen=True)
class StepResult:
    claimed: list[Claimed]
    #: Rules whose due action must wait for the rule's run in flight.
    deferred: set[str]
    finished: int
    #: Next occurrences inserted (they may be due before actions already read ahead).
    planned: int


def _schedule(row: Mapping[str, Any], horizon_years: int) -> Schedule | None:
    if row["rule_id"] is None or row["r_schedule"] is None:
        return None
    rule = _rule_of(row)
    try:
        return rule_schedule(rule, horizon_years)
    except ScheduleError:
        return None


def _rule_of(row: Mapping[str, Any]) -> dict[str, Any]:
    """The rule's columns of a joined due row, under their own names."""
    rule = {name[2:]: value for name, value in row.items() if name.startswith("r_")}
    return rule | {
        "id": row["rule_id"],
        "tenant_id": row["tenant_id"],
        "max_attempts": _max(row),
        "priority": row["priority"],
    }


def _max(row: Mapping[str, Any]) -> int:
    return int(row["max_attempts"])


def decide_all(
    rows: Sequence[RowMapping], state: TenantState, now: datetime, config: EngineConfig
) -> list[tuple[RowMapping, Decision]]:
    over_quota = state.is_over_quota()
    decided = []
    #: Rules with an action to run in this batch: a second one overlaps it like a run in flight.
    running: dict[str, datetime] = {}
    for row in rows:
        rule_id = row["rule_id"]
        since = state.busy_since(rule_id) or running.get(rule_id)
        c = Circumstances(now, since, over_quota, config.default_grace_s)
        decision = decide(row, _schedule(row, config.horizon_years), c)
        if decision.verdict is Verdict.RUN and rule_id is not None:
            running.setdefault(rule_id, now)
        decided.append((row, decision))
    return decided


async def apply(
    conn: AsyncConnection,
    decided: Sequence[tuple[RowMapping, Decision]],
    state: TenantState,
    now: datetime,
    config: EngineConfig,
) -> StepResult:
    """Write every decision of one step (the caller owns the transaction)."""
    by_verdict: dict[Verdict, list[tuple[RowMapping, Decision]]] = defaultdict(list)
    for row, decision in decided:
        by_verdict[decision.verdict].append((row, decision))
    to_run = [row for row, _ in by_verdict[Verdict.RUN]]
    lease_s = config.lease_margin_s + max((_timeout_s(r) for r in to_run), default=0)
    won = await queue.claim(conn, to_run, config.node_name, now, now + timedelta(seconds=lease_s))
    finished = await _finish(conn, by_verdict[Verdict.SKIP], "skipped", now)
    expired = await _finish(conn, by_verdict[Verdict.EXPIRE], "expired", now)
    cancelled = await _finish(conn, by_verdict[Verdict.CANCEL], "cancelled", now)
    chained = [
        (r, d) for r, d in decided if r["id"] in won or r["id"] in finished or r["id"] in expired
    ]
    await _record_missed(conn, [(r, d) for r, d in chained if d.missed], now)
    after = {
        r["id"]: (d.chain_from, d.chain_inclusive) for r, d in chained if d.chain_from is not None
    }
    planned = await queue.advance_chain(
        conn, [r for r, _ in chained], now, config.horizon_years, after=after
    )
    await _expiry_events(
        conn, [r for r, _ in by_verdict[Verdict.EXPIRE] if r["id"] in expired], now
    )
    claimed = [Claimed(r, won[r["id"]], now) for r in to_run if r["id"] in won]
    deferred = {r["rule_id"] for r, _ in by_verdict[Verdict.DEFER]}
    return StepResult(claimed, deferred, len(finished | expired | cancelled), len(planned))


def _timeout_s(row: Mapping[str, Any]) -> float:
    timeout_ms = row["timeout_ms"] if row["timeout_ms"] is not None else row["r_timeout_ms"]
    return (timeout_ms or 5000) / 1000


async def _finish(
    conn: AsyncConnection, items: Sequence[tuple[RowMapping, Decision]], status: str, now: datetime
) -> set[int]:
    by_reason: dict[str | None, list[RowMapping]] = defaultdict(list)
    for row, decision in items:
        by_reason[decision.reason].append(row)
    done: set[int] = set()
    for reason, rows in by_reason.items():
        finished = await queue.finish_pending(conn, rows, status, reason, now)
        metrics.count_skips(reason, len(finished))
        done |= finished
    return done


async def _record_missed(
    conn: AsyncConnection, items: Sequence[tuple[RowMapping, Decision]], now: datetime
) -> None:
    """Missed occurrences leave a trace: one skipped action each (reason misfire)."""
    live = await queue.chain_rules(conn, [r for r, _ in items])
    rows = []
    for row, decision in items:
        rule = live.get(row["rule_id"])
        if rule is None:
            continue
        rows += [skipped_row(rule, at, SkipReason.MISFIRE, now) for at in decision.missed]
    if rows:
        await conn.execute(actions.insert(), rows)
        metrics.count_skips(SkipReason.MISFIRE, len(rows))


async def _expiry_events(conn: AsyncConnection, rows: Sequence[RowMapping], now: datetime) -> None:
    await outbox.insert_events(
        conn,
        [
            {
                "tenant_id": r["tenant_id"],
                "type": "action.expired",
                "payload": {
                    "action_id": r["id"],
                    "rule_id": r["rule_id"],
                    "scheduled_at": r["scheduled_at"].isoformat(),
                    "due_at": r["due_at"].isoformat(),
                },
                "source": "engine",
                "rule_id": r["rule_id"],
                "action_id": r["id"],
                "created_at": now,
            }
            for r in rows
        ],
    )
