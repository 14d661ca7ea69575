"""Purging old history in small batches, so the writer is never held for long.

Successful runs are kept `retention_ok_days`, every other run `retention_failed_days`; events
already delivered (or with no webhook) go with the successful runs.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime, timedelta

from sqlalchemy import delete, select

from engine.deps import Deps
from engine.store.tables import events, runs

log = logging.getLogger("cadenza.engine")
#: How often a node looks for history to purge.
RETENTION_PERIOD_S = 3600.0


async def _purge(deps: Deps, table: object, condition: object, batch: int) -> int:
    """Delete matching rows `batch` at a time; returns how many went."""
    total = 0
    while True:
        ids = select(table.c.id).where(condition).limit(batch)  # type: ignore[attr-defined]
        async with deps.write() as conn:
            result = await conn.execute(delete(table).where(table.c.id.in_(ids)))  # type: ignore[attr-defined, arg-type]
        total += result.rowcount
        if result.rowcount < batch:
            return total
        await asyncio.sleep(0)


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
    settled = events.c.delivery_status.in_(("none", "delivered"))
    removed += await _purge(deps, events, settled & (events.c.created_at < ok_cut), batch)
    removed += await _purge(deps, events, events.c.created_at < failed_cut, batch)
    return removed


async def retention_loop(deps: Deps) -> None:
    while True:
        try:
            removed = await purge_history(deps, deps.clock.now())
            if removed:
                log.info("retention: purged %d old runs and events", removed)
        except Exception:
            log.exception("retention pass failed; retrying in an hour")
        await asyncio.sleep(RETENTION_PERIOD_S)
