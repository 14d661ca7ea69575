"""Purging old history in small batches, so the writer is never held for long.

Successful runs are kept `retention_ok_days`, every other run `retention_failed_days`; events
and notifications already delivered (or events with no webhook) go with the successful runs,
the others with the failures. Finished actions follow
their outcome: succeeded, skipped and cancelled ones go with the successful runs, failed and
expired ones with the failures, and an action only once none of its runs is left (deleting an
action cascades to its runs, and a succeeded action's failed attempts are kept as failures).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from datetime import datetime, timedelta

from sqlalchemy import ColumnElement, Table, delete, exists, select

from engine.deps import Deps
from engine.domain.records import ActionStatus
from engine.store.tables import actions, events, notifications, runs

log = logging.getLogger("cadenza.engine")
#: How often a node looks for history to purge.
RETENTION_PERIOD_S = 3600.0
#: Finished actions kept as long as successful runs; the other finished ones, as failures.
OK_ACTIONS = (ActionStatus.SUCCEEDED, ActionStatus.SKIPPED, ActionStatus.CANCELLED)
FAILED_ACTIONS = (ActionStatus.FAILED, ActionStatus.EXPIRED)


async def _purge(deps: Deps, table: Table, condition: ColumnElement[bool], batch: int) -> int:
    """Delete matching rows `batch` at a time; returns how many went."""
    total = 0
    while True:
        ids = select(table.c.id).where(condition).limit(batch)
        async with deps.write() as conn:
            result = await conn.execute(delete(table).where(table.c.id.in_(ids)))
        total += result.rowcount
        if result.rowcount < batch:
            return total
        await asyncio.sleep(0)


def _finished_actions(statuses: Iterable[ActionStatus], cut: datetime) -> ColumnElement[bool]:
    has_runs = exists().where(runs.c.action_id == actions.c.id)
    return actions.c.status.in_(statuses) & (actions.c.finished_at < cut) & ~has_runs


async def purge_history(deps: Deps, now: datetime) -> int:
    """One retention pass; returns the number of rows removed."""
    config = deps.config
    ok_cut = now - timedelta(days=config.retention_ok_days)
    failed_cut = now - timedelta(days=config.retention_failed_days)
    batch = config.retention_batch
    removed = await _purge(
        deps, runs, (runs.c.outcome == "ok") & (runs.c.finished_at < ok_cut), batch
    )
    removed += await _purge(deps, runs, runs.c.finished_at < failed_cut, batch)
    removed += await _purge(deps, actions, _finished_actions(OK_ACTIONS, ok_cut), batch)
    removed += await _purge(deps, actions, _finished_actions(FAILED_ACTIONS, failed_cut), batch)
    for outbox in (events, notifications):
        settled = outbox.c.delivery_status.in_(("none", "delivered"))
        removed += await _purge(deps, outbox, settled & (outbox.c.created_at < ok_cut), batch)
        removed += await _purge(deps, outbox, outbox.c.created_at < failed_cut, batch)
    return removed


async def retention_loop(deps: Deps) -> None:
    while True:
        try:
            removed = await purge_history(deps, deps.clock.now())
            if removed:
                log.info("retention: purged %d old runs, actions and events", removed)
        except Exception:
            log.exception("retention pass failed; retrying in an hour")
        await asyncio.sleep(RETENTION_PERIOD_S)
