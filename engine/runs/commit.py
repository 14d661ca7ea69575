"""Completing runs: record every attempt, finish or re-plan its action and commit its effects —
for a whole batch of runs in one transaction.

Effects (kv writes, events, the action's new state) are committed only for runs whose claim
still holds and whose kv reads still hold (`tenants.kv_snapshot`). A run that lost its claim
(its lease expired and another node took over) is still recorded, with `committed = false`,
and changes nothing else. A run whose reads no longer hold (another run of the tenant changed
what it read) is recorded the same way, with the error `kv_conflict: …`, and its action runs
again at once: the re-run is an attempt of its own, which does not spend the rule's
`max_attempts` (a conflict is not the script's failure).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection

from engine.domain.due import DueAction
from engine.domain.records import ActionStatus, SkipReason
from engine.ops import metrics
from engine.ops.tracing import RunTrace
from engine.runs.follow_ups import FollowUp
from engine.runs.notices import FinalOutcome, notify_outcomes
from engine.store import actions as action_store
from engine.store import loop_statements as queue
from engine.store import outbox
from engine.store import runs as run_store
from engine.store.rows import NewAction, NewRun, follow_up_action
from tenants.kv_changes import KvChanges
from tenants.kv_snapshot import commit_changes
from tenants.usage import add_usage

#: Attempts after which an action that keeps running again for reasons not its own (kv
#: conflicts, database outages) fails instead: a bound on livelock, far above what contention
#: needs.
MAX_FREE_ATTEMPTS = 100


class Recorded(StrEnum):
    """What became of a completion."""

    COMMITTED = "committed"
    """Recorded with its effects."""
    RUNS_AGAIN = "runs_again"
    """Recorded without effects for a reason not the script's (its kv reads no longer held,
    the database was away); the action runs again."""
    LOST = "lost"
    """Recorded without effects: its claim no longer held."""
    UNSTORABLE = "unstorable"
    """Its record could not be stored; an engine error was recorded in its place."""


@dataclass(frozen=True)
class Completion:
    """One finished attempt, ready to commit (a batch that fails is tried again as it was)."""

    action: DueAction
    claim_version: int
    #: The action's new state: succeeded, failed, or pending again (a retry at `due_at`).
    status: ActionStatus
    reason: str | None
    due_at: datetime
    run: NewRun
    kv: KvChanges | None = None
    #: (type, payload, source) of every event to store with the run.
    events: list[tuple[str, Any, str]] = field(default_factory=list)
    cpu_ms: int = 0
    #: The action's attempts allowed (None: as it was; a run again for a reason not the
    #: script's adds one).
    max_attempts: int | None = None
    #: Its kv writes and events are not to be committed (the run is recorded as not committed).
    discards_effects: bool = False
    #: The run's trace, when traced: the record span is made its child once committed.
    trace: RunTrace | None = None
    #: The actions the run planned (`ctx.schedule`), committed with its effects.
    follow_ups: tuple[FollowUp, ...] = ()

    @property
    def action_id(self) -> int:
        return self.action.id

    def planned(self) -> list[NewAction]:
        """The actions its run planned (`ctx.schedule`)."""
        a = self.action
        return [follow_up_action(a, f.key, f.params, f.run_at) for f in self.follow_ups]

    def conflicted(self, detail: str) -> Completion:
        """Its kv reads no longer hold: no effects; it runs again (reason kv_conflict)."""
        return self.run_again(f"kv_conflict: {detail}", SkipReason.KV_CONFLICT)

    def run_again(self, error: str, reason: str | None = None) -> Completion:
        """Not the script's failure: no effects, and the action runs again now without
        spending an attempt of the rule's (or fails, with `reason`, past the bound)."""
        run = replace(self.run, error=f"{error}; its effects were discarded")
        if run.attempt >= MAX_FREE_ATTEMPTS:
            reason = reason or SkipReason.ATTEMPTS
            failed = replace(
                self, status=ActionStatus.FAILED, reason=reason, run=run, kv=None, events=[]
            )
            return replace(failed, discards_effects=True)
        allowed = self.action.max_attempts if self.max_attempts is None else self.max_attempts
        return replace(
            self,
            status=ActionStatus.PENDING,
            reason=reason,
            due_at=run.finished_at,
            run=run,
            kv=None,
            events=[],
            max_attempts=allowed + 1,
            discards_effects=True,
        )


async def commit_batch(conn: AsyncConnection, batch: Sequence[Completion]) -> dict[int, Recorded]:
    """Commit a batch (the caller owns the transaction); what became of each action id."""
    if not batch:
        return {}
    held = await queue.hold(conn, {c.action_id: c.claim_version for c in batch})
    rerun = await _commit_kv(conn, [c for c in batch if c.action_id in held])
    batch = [rerun.get(c.action_id, c) for c in batch]
    await queue.set_outcomes(conn, [_outcome(c) for c in batch if c.action_id in held])
    committed = {c.action_id for c in batch if c.action_id in held and not c.discards_effects}
    await action_store.insert_unless_keyed(
        conn,
        [
            (new, c.run.finished_at)
            for c in batch
            if c.action_id in committed
            for new in c.planned()
        ],
    )
    recorded_runs = [c.run for c in batch]
    await run_store.insert_runs(conn, recorded_runs, committed)
    metrics.count_runs(recorded_runs)
    # Held runs whose effects are discarded keep only the engine's own events (run.failed).
    emitting = [c for c in batch if c.action_id in held and c.events]
    run_ids = await run_store.ids_by_attempt(conn, {c.action_id for c in emitting})
    await outbox.insert_events(
        conn,
        [
            _event_row(c, run_ids[(c.action_id, c.run.attempt)], type_, payload, source)
            for c in emitting
            for type_, payload, source in c.events
        ],
    )
    await notify_outcomes(conn, [_final(c) for c in batch if _ends_rule_action(c, held)])
    await add_usage(
        conn,
        [(c.action.tenant_id, c.run.started_at.date(), 1, c.cpu_ms) for c in batch],
    )
    return {c.action_id: _recorded(c, held, committed) for c in batch}


def _ends_rule_action(c: Completion, held: set[int]) -> bool:
    """Whether the completion ends its rule's action for good (a retry to come does not)."""
    final = c.status in (ActionStatus.SUCCEEDED, ActionStatus.FAILED)
    return final and c.action_id in held and c.action.rule_id is not None


def _final(c: Completion) -> FinalOutcome:
    rule = c.action.rule
    succeeded = c.status == ActionStatus.SUCCEEDED
    return FinalOutcome(c.run, succeeded, c.action.scheduled_at, rule.name if rule else None)


def _recorded(c: Completion, held: set[int], committed: set[int]) -> Recorded:
    if c.action_id in committed:
        return Recorded.COMMITTED
    return Recorded.RUNS_AGAIN if c.action_id in held else Recorded.LOST


def _outcome(c: Completion) -> dict[str, Any]:
    return {
        "b_id": c.action_id,
        "b_status": c.status,
        "b_reason": c.reason,
        "b_due_at": c.due_at,
        "b_finished_at": None if c.status == ActionStatus.PENDING else c.run.finished_at,
        "b_max_attempts": c.action.max_attempts if c.max_attempts is None else c.max_attempts,
    }


async def _commit_kv(conn: AsyncConnection, batch: Sequence[Completion]) -> dict[int, Completion]:
    """Validate and apply each tenant's kv changes in completion order (tenants in id order,
    so that nodes committing together take the tenants' kv locks in one order); the
    completions whose reads no longer held, by action id, as they run again."""
    by_tenant: dict[str, list[Completion]] = defaultdict(list)
    for c in batch:
        if c.kv is not None and (c.kv.writes or c.kv.checks):
            by_tenant[c.action.tenant_id].append(c)
    rerun = {}
    for tenant_id in sorted(by_tenant):
        changing = by_tenant[tenant_id]
        broken = await commit_changes(conn, tenant_id, [c.kv for c in changing if c.kv])
        for c, what in zip(changing, broken, strict=True):
            if what is not None:
                rerun[c.action_id] = c.conflicted(f"{what} before its writes committed")
    return rerun


def _event_row(
    c: Completion, run_id: int, type_: str, payload: Any, source: str
) -> outbox.NewEvent:
    action = c.action
    created_at = c.run.finished_at
    return outbox.NewEvent(
        action.tenant_id, type_, payload, source, created_at, action.rule_id, action.id, run_id
    )
