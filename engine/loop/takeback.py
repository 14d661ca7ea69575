"""Taking back claims whose runs will never report: of a node that died (its lease expired),
of this node's previous incarnation (found when it starts again), and of runs a stop cut short.

A claim whose run had not started goes back to pending uncounted, and nothing is recorded: no
attempt happened. A run that started is a lost attempt, recorded as a run of its own with its
real start time (`actions.started_at`) and retried: counted against `max_attempts` when its
node died (the script might be why), not counted when a clean stop interrupted it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from sqlalchemy.engine import RowMapping
from sqlalchemy.ext.asyncio import AsyncConnection

from engine.domain.records import ActionStatus, SkipReason
from engine.ops import metrics
from engine.runs.notices import FinalOutcome, notify_outcomes
from engine.store import claims, outbox, runs
from engine.store.rows import NewRun
from engine.store.tables import actions


class Loss(StrEnum):
    """How the runs being taken back were lost."""

    DIED = "died"
    """Their node stopped renewing its leases."""
    RESTARTED = "restarted"
    """Their node was restarted (this node's previous incarnation)."""
    STOPPED = "stopped"
    """Their node stopped cleanly, and they still ran when its grace period ended."""


_ERRORS = {
    Loss.DIED: "the node running this attempt ({node}) stopped renewing its lease; "
    "the attempt was lost",
    Loss.RESTARTED: "the node running this attempt ({node}) was restarted while it ran; "
    "the attempt was lost",
    Loss.STOPPED: "the node running this attempt ({node}) stopped and the run was still "
    "going at the end of its grace period; it was interrupted and runs again",
}


@dataclass(frozen=True)
class TakenBack:
    #: Actions whose run had not started, pending again as they were.
    given_back: set[int]
    #: Lost attempts, pending again now (the action rows as they were read).
    retried: list[RowMapping]
    #: Lost attempts that were the last allowed: failed (reason lease_lost).
    failed: list[RowMapping]

    @property
    def tenant_ids(self) -> set[str]:
        return {r["tenant_id"] for r in [*self.retried, *self.failed]}


async def take_back(
    conn: AsyncConnection, rows: Sequence[RowMapping], now: datetime, loss: Loss
) -> TakenBack:
    """Take back the claims read as `rows` (the caller owns the transaction)."""
    given = await claims.give_back(conn, {r["id"]: r["version"] for r in rows if not _ran(r)})
    started = [r for r in rows if _ran(r)]
    free = loss is Loss.STOPPED
    retry = [r for r in started if free or r["attempt"] < r["max_attempts"]]
    fail = [r for r in started if r not in retry]
    extra = {"max_attempts": actions.c.max_attempts + 1} if free else {}
    returned = await claims.finish_lost(
        conn, retry, status=ActionStatus.PENDING, due_at=now, **extra
    )
    ended = await claims.finish_lost(
        conn, fail, status=ActionStatus.FAILED, reason=SkipReason.LEASE_LOST, finished_at=now
    )
    retried = [r for r in retry if r["id"] in returned]
    failed = [r for r in fail if r["id"] in ended]
    failed_runs = [_lost_run(r, now, loss) for r in failed]
    lost_runs = [*(_lost_run(r, now, loss) for r in retried), *failed_runs]
    await runs.insert_runs(conn, lost_runs)
    metrics.count_runs(lost_runs)
    await outbox.insert_events(conn, [_failed_event(r, now) for r in failed])
    await notify_outcomes(conn, _finals(failed, failed_runs))
    return TakenBack(given, retried, failed)


def _finals(failed: Sequence[RowMapping], failed_runs: Sequence[NewRun]) -> list[FinalOutcome]:
    """The lost last attempts of rules' actions: final failures of their rules' streaks."""
    pairs = zip(failed, failed_runs, strict=True)
    return [FinalOutcome(run, False, r["scheduled_at"]) for r, run in pairs if r["rule_id"]]


def _ran(row: RowMapping) -> bool:
    return row["started_at"] is not None


def _lost_run(r: RowMapping, now: datetime, loss: Loss) -> NewRun:
    node = r["claimed_by"] or "unknown"
    started_at = min(r["started_at"], now)
    return NewRun(
        tenant_id=r["tenant_id"],
        action_id=r["id"],
        rule_id=r["rule_id"],
        attempt=r["attempt"],
        node=node,
        runtime=r["runtime"] or "python",
        planned_at=r["due_at"],
        started_at=started_at,
        finished_at=now,
        outcome="killed" if loss is Loss.STOPPED else "crashed",
        duration_ms=(now - started_at).total_seconds() * 1000,
        error=_ERRORS[loss].format(node=node),
    )


def _failed_event(r: RowMapping, now: datetime) -> outbox.NewEvent:
    payload = {
        "action_id": r["id"],
        "rule_id": r["rule_id"],
        "attempts": r["attempt"],
        "outcome": "crashed",
    }
    return outbox.NewEvent(
        r["tenant_id"], "run.failed", payload, "engine", now, r["rule_id"], r["id"]
    )
