"""Actions made by hand: trigger a rule now, backfill a range, cancel and retry (one-offs with
an idempotency key are `engine.service.one_offs`). Only a rule's own chain of occurrences (key None)
plans the next one; every hand-made action carries a key, so it never forks the rule's timeline.
"""

from __future__ import annotations

import secrets
from datetime import datetime

from sqlalchemy.engine import RowMapping
from sqlalchemy.ext.asyncio import AsyncConnection

from engine.deps import Deps
from engine.domain.changes import Change
from engine.domain.occurrences import rule_schedule
from engine.domain.records import ActionStatus, SkipReason
from engine.domain.validation import require_aware
from engine.errors import ActionNotFound, InvalidRule, InvalidState
from engine.loop.chain import continue_chains
from engine.ops import metrics, tracing
from engine.service.row_records import MAX_ID
from engine.service.rule_writes import load
from engine.store import actions as action_store
from engine.store.rows import NewAction
from engine.store.snapshots import due_action, rule_snapshot

#: Most occurrences one backfill may create.
MAX_BACKFILL = 1000
#: What a retry copies from the action it retries.
_RETRIED = (
    "tenant_id", "rule_id", "runtime", "code", "params", "timeout_ms", "memory_mb",
    "scheduled_at", "priority",
)  # fmt: skip


def _by_hand(rule: RowMapping, scheduled_at: datetime, now: datetime, key: str) -> NewAction:
    """An occurrence of `rule` run by hand, due now."""
    return NewAction(
        tenant_id=rule["tenant_id"],
        scheduled_at=scheduled_at,
        due_at=now,
        key=key,
        rule_id=rule["id"],
        rule_version=rule["version"],
        max_attempts=rule["max_attempts"],
        priority=rule["priority"],
        trace_parent=tracing.current_parent(),
    )


async def trigger(deps: Deps, tenant_id: str, rule_id: str) -> int:
    now = deps.clock.now()
    async with deps.write() as conn:
        rule = await load(conn, tenant_id, rule_id)
        key = f"trigger:{secrets.token_hex(8)}"
        action_id = await action_store.insert_action(conn, _by_hand(rule, now, now, key), now)
    deps.wake(tenant_id, Change.ADDED)
    return action_id


async def backfill(
    deps: Deps, tenant_id: str, rule_id: str, start: datetime, end: datetime
) -> list[int]:
    """One action per occurrence in [start, end), due now; repeating a backfill adds nothing."""
    require_aware("start", start)
    require_aware("end", end)
    if end <= start:
        raise InvalidRule("end", "must be after start")
    now = deps.clock.now()
    if end > now:
        raise InvalidRule("end", "must not be in the future", hint="backfill covers the past only")
    async with deps.write() as conn:
        rule = await load(conn, tenant_id, rule_id)
        schedule = rule_schedule(rule_snapshot(rule), deps.config.horizon_years)
        found = schedule.between(start, end)[: MAX_BACKFILL + 1]
        if len(found) > MAX_BACKFILL:
            raise InvalidRule(
                "end",
                f"the range holds more than {MAX_BACKFILL} occurrences",
                hint="backfill a shorter range",
            )
        ids = []
        for at in found:
            key = f"backfill:{rule_id}:{at.isoformat()}"
            existing = await action_store.find_by_key(conn, tenant_id, key)
            if existing is None:
                new = _by_hand(rule, at, now, key)
                ids.append(await action_store.insert_action(conn, new, now))
            else:
                ids.append(existing["id"])
    deps.wake(tenant_id, Change.ADDED)
    return ids


async def cancel(deps: Deps, tenant_id: str, action_id: int) -> None:
    """Cancel an action that has not started (pending, or claimed ahead of its due time); a
    rule's own occurrence moves its chain to the next one."""
    now = deps.clock.now()
    async with deps.write() as conn:
        row = await load_action(conn, tenant_id, action_id)
        if not await action_store.cancel_unstarted(conn, row, now):
            raise InvalidState(_not_cancellable(row))
        metrics.count_skips(SkipReason.USER, 1)
        await continue_chains(conn, [due_action(row)], now, deps.config.horizon_years)
    deps.wake(tenant_id, Change.CHANGED)


def _not_cancellable(row: RowMapping) -> str:
    """Why a cancel changed nothing: a run that started is never interrupted (its script may
    have had effects already; its timeout bounds it)."""
    if row["status"] != ActionStatus.RUNNING:
        return (
            f"action {row['id']} is {row['status']} already: only an action that has not "
            "started can be cancelled"
        )
    started_at = row["started_at"]
    since = f" since {started_at.isoformat()}" if started_at is not None else ""
    return (
        f"action {row['id']} is running{since}: a run that started is not interrupted, it ends "
        "within its timeout; pause its rule to stop the next ones"
    )


async def retry(deps: Deps, tenant_id: str, action_id: int) -> int:
    """Run a finished, unsuccessful action once more, now, as a new action (same occurrence)."""
    now = deps.clock.now()
    async with deps.write() as conn:
        row = await load_action(conn, tenant_id, action_id)
        if row["status"] not in {
            ActionStatus.FAILED,
            ActionStatus.EXPIRED,
            ActionStatus.SKIPPED,
            ActionStatus.CANCELLED,
        }:
            raise InvalidState(
                f"action {action_id} is {row['status']}: only a failed, expired, skipped "
                "or cancelled action can be retried"
            )
        version = row["rule_version"]
        if row["rule_id"] is not None:
            version = (await load(conn, tenant_id, row["rule_id"]))["version"]
        new_id = await action_store.insert_action(conn, _again(row, version, now), now)
    deps.wake(tenant_id, Change.ADDED)
    return new_id


def _again(row: RowMapping, rule_version: int | None, now: datetime) -> NewAction:
    """A new action for the occurrence of `row`, due now, tried once, of the rule's current
    version (so that editing the rule cancels it like any pending occurrence)."""
    copied = {name: row[name] for name in _RETRIED}
    return NewAction(
        **copied,
        key=f"retry:{row['id']}:{secrets.token_hex(4)}",
        due_at=now,
        rule_version=rule_version,
        max_attempts=1,
    )


async def load_action(conn: AsyncConnection, tenant_id: str, action_id: int) -> RowMapping:
    """The tenant's action `action_id`; ActionNotFound if the tenant has none by that id,
    another tenant's action and an id out of range included (missing, never forbidden)."""
    row = (
        None
        if not 0 < action_id <= MAX_ID
        else await action_store.get_action(conn, tenant_id, action_id)
    )
    if row is None:
        raise ActionNotFound(f"no action {action_id} for this tenant: check the action id")
    return row
