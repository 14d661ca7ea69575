"""Completing runs: record every attempt, finish or re-plan its action and commit its effects —
for a whole batch of runs in one transaction.

Effects (kv writes, events, the action's new state) are committed only for runs whose claim
still holds; a run that lost its claim (its lease expired and another node took over) is still
recorded, with `committed = false`, and changes nothing else.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncConnection

from engine import metrics
from engine.store import outbox, queue
from engine.store.tables import runs
from engine.tracing import RunTrace
from tenants.kv import apply_writes
from tenants.usage import add_usage


@dataclass
class Completion:
    """One finished attempt, ready to commit."""

    action: Mapping[str, Any]
    claim_version: int
    #: The action's new state: succeeded, failed, or pending again (a retry at `due_at`).
    status: str
    reason: str | None
    due_at: datetime
    run: dict[str, Any]
    writes: dict[str, Any] = field(default_factory=dict)
    #: (type, payload, source) of every event to store with the run.
    events: list[tuple[str, Any, str]] = field(default_factory=list)
    cpu_ms: int = 0
    #: The run's trace, when traced: the record span is made its child once committed.
    trace: RunTrace | None = None

    @property
    def action_id(self) -> int:
        return int(self.action["id"])


async def commit_batch(conn: AsyncConnection, batch: Sequence[Completion]) -> set[int]:
    """Commit a batch (the caller owns the transaction); returns the action ids whose effects
    were committed."""
    held = await queue.hold(conn, {c.action_id: c.claim_version for c in batch})
    await queue.set_outcomes(
        conn,
        [
            {
                "b_id": c.action_id,
                "b_status": c.status,
                "b_reason": c.reason,
                "b_due_at": c.due_at,
                "b_finished_at": None if c.status == "pending" else c.run["finished_at"],
            }
            for c in batch
            if c.action_id in held
        ],
    )
    for c in batch:
        c.run["committed"] = c.action_id in held
    await conn.execute(runs.insert(), [c.run for c in batch])
    metrics.count_runs([c.run for c in batch])
    await _apply_writes(conn, [c for c in batch if c.action_id in held])
    emitting = [c for c in batch if c.action_id in held and c.events]
    run_ids = await _run_ids(conn, emitting)
    await outbox.insert_events(
        conn,
        [
            _event_row(c, run_ids[(c.action_id, c.run["attempt"])], type_, payload, source)
            for c in emitting
            for type_, payload, source in c.events
        ],
    )
    await add_usage(
        conn,
        [(c.action["tenant_id"], c.run["started_at"].date(), 1, c.cpu_ms) for c in batch],
    )
    return held


async def _run_ids(
    conn: AsyncConnection, batch: Sequence[Completion]
) -> dict[tuple[int, int], int]:
    """{(action id, attempt): run id} of the committed runs just inserted for `batch` (one per
    attempt: only a held claim commits). Read back only for runs that emitted events: an
    insert that returns ids makes SQLAlchemy render a statement per batch, which cost more
    than the plain insert of the whole batch."""
    if not batch:
        return {}
    query = select(runs.c.id, runs.c.action_id, runs.c.attempt).where(
        runs.c.action_id.in_({c.action_id for c in batch}), runs.c.committed.is_(True)
    )
    return {(row.action_id, row.attempt): row.id for row in await conn.execute(query)}


async def _apply_writes(conn: AsyncConnection, batch: Sequence[Completion]) -> None:
    """Each tenant's writes merged in completion order (the later write of a key wins)."""
    merged: dict[str, dict[str, Any]] = {}
    for c in batch:
        merged.setdefault(c.action["tenant_id"], {}).update(c.writes)
    for tenant_id, writes in merged.items():
        if writes:
            await apply_writes(conn, tenant_id, writes)


def _event_row(c: Completion, run_id: int, type_: str, payload: Any, source: str) -> dict[str, Any]:
    return {
        "tenant_id": c.action["tenant_id"],
        "type": type_,
        "payload": payload,
        "source": source,
        "rule_id": c.action["rule_id"],
        "action_id": c.action_id,
        "run_id": run_id,
        "created_at": c.run["finished_at"],
    }
