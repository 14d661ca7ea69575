"""Deleting rules: soft, so their runs stay readable; their pending actions are cancelled and
their DST gap traces ahead go, in the transaction that deletes."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.engine import RowMapping
from sqlalchemy.ext.asyncio import AsyncConnection

from engine.deps import Deps
from engine.domain.changes import Change
from engine.domain.records import ActionStatus, SkipReason
from engine.errors import StaleVersion
from engine.ops import metrics
from engine.service import rule_etags
from engine.service.rule_writes import load
from engine.store import actions as action_store
from engine.store import rules as rule_store


async def delete(deps: Deps, tenant_id: str, rule_id: str, expected_version: int | None) -> None:
    """Soft-delete: history stays, pending actions are cancelled, DST gap traces ahead go.

    With `expected_version`, only a rule no edit changed since is deleted (a pause or a resume
    may have come between), checked by the statement that deletes (StaleVersion otherwise, and
    nothing changes)."""
    now = deps.clock.now()
    async with deps.write() as conn:
        row = await load(conn, tenant_id, rule_id)
        if not rule_etags.is_current(row, expected_version):
            raise StaleVersion(row["version"])
        version = None if expected_version is None else row["version"]
        if not await write_delete(conn, row, version, now):
            raise StaleVersion((await load(conn, tenant_id, rule_id))["version"])
    deps.wake(tenant_id, Change.CHANGED)


async def write_delete(
    conn: AsyncConnection, row: RowMapping, version: int | None, now: datetime
) -> bool:
    """Soft-delete the rule of `row` in `conn`'s transaction, if still at `version` (None:
    any); False (nothing written) otherwise."""
    rule_id, values = row["id"], {"deleted_at": now, "updated_at": now}
    if not await rule_store.update_rule(conn, row["tenant_id"], rule_id, version, values):
        return False
    finished = await action_store.finish_pending_of_rule(
        conn, rule_id, ActionStatus.CANCELLED, SkipReason.RULE_DELETED, now
    )
    metrics.count_skips(SkipReason.RULE_DELETED, finished)
    await action_store.delete_gap_traces_after(conn, rule_id, now)
    return True
