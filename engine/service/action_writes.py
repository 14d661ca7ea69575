"""Actions made by hand: trigger a rule now, backfill a range, one-offs with an idempotency key,
cancel and retry. Only a rule's own chain of occurrences (key None) plans the next one; every
hand-made action carries a key, so it never forks the rule's timeline.
"""

from __future__ import annotations

import secrets
from datetime import datetime
from typing import Any

from sqlalchemy.engine import RowMapping
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from engine.deps import Deps
from engine.domain.occurrences import rule_schedule
from engine.domain.records import ActionStatus, RuleSpec, SkipReason
from engine.domain.validation import check_code, require_aware
from engine.errors import ActionNotFound, InvalidRule, InvalidState
from engine.loop.chain import continue_chains
from engine.ops import metrics, tracing
from engine.service.row_records import MAX_ID
from engine.service.rule_writes import load
from engine.store import actions as action_store
from engine.store.snapshots import due_action, rule_snapshot
from sandbox import RuntimeName

#: Most occurrences one backfill may create.
MAX_BACKFILL = 1000
_DEFAULTS = RuleSpec(name="-", schedule="-", code="")


def _manual_row(
    rule: RowMapping, scheduled_at: datetime, now: datetime, key: str
) -> dict[str, Any]:
    return {
        "tenant_id": rule["tenant_id"],
        "rule_id": rule["id"],
        "rule_version": rule["version"],
        "key": key,
        "scheduled_at": scheduled_at,
        "due_at": now,
        "status": ActionStatus.PENDING,
        "max_attempts": rule["max_attempts"],
        "priority": rule["priority"],
        "created_at": now,
        "trace_parent": tracing.current_parent(),
    }


async def trigger(deps: Deps, tenant_id: str, rule_id: str) -> int:
    now = deps.clock.now()
    async with deps.write() as conn:
        rule = await load(conn, tenant_id, rule_id)
        key = f"trigger:{secrets.token_hex(8)}"
        action_id = await action_store.insert_action(conn, _manual_row(rule, now, now, key))
    deps.wake(tenant_id)
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
                ids.append(await action_store.insert_action(conn, _manual_row(rule, at, now, key)))
            else:
                ids.append(existing["id"])
    deps.wake(tenant_id)
    return ids


async def submit(
    deps: Deps,
    tenant_id: str,
    *,
    run_at: datetime,
    key: str | None,
    rule_id: str | None,
    code: str | None,
    runtime: str | None,
    params: dict[str, Any] | None,
) -> int:
    """A one-off at `run_at`; with a key already used, the pending action is updated instead."""
    require_aware("run_at", run_at)
    if (rule_id is None) == (code is None):
        raise InvalidRule("code", "give either rule_id or code (and runtime), not both or neither")
    profile = await deps.profile(tenant_id)
    timeout_ms = min(_DEFAULTS.timeout_ms, profile.quotas.max_timeout_ms)
    if code is not None:
        await check_code(deps.sandbox, runtime or RuntimeName.PYTHON, code, timeout_ms)
    now = deps.clock.now()
    values: dict[str, Any] = {"scheduled_at": run_at, "due_at": run_at, "params": params}
    values["trace_parent"] = tracing.current_parent()
    if code is not None:
        values |= {
            "runtime": runtime or RuntimeName.PYTHON,
            "code": code,
            "timeout_ms": timeout_ms,
            "memory_mb": min(_DEFAULTS.memory_mb, profile.quotas.max_memory_mb),
            "max_attempts": _DEFAULTS.max_attempts,
        }
    key = key or f"oneoff:{secrets.token_hex(8)}"
    async with deps.write() as conn:
        existing = await action_store.find_by_key(conn, tenant_id, key)
        if existing is not None:
            changed = values | _unclaimed(existing)  # once its run started, nothing changes
            await action_store.update_unstarted(conn, existing, changed, now)
            action_id = int(existing["id"])
        else:
            rule = await load(conn, tenant_id, rule_id) if rule_id is not None else None
            action_id = await _insert_one_off(conn, tenant_id, key, rule, values, now)
    deps.wake(tenant_id)
    return action_id


def _unclaimed(action: RowMapping) -> dict[str, Any]:
    """An action claimed ahead goes back to pending, its attempt not counted (it never ran
    with effect: see `engine.store.actions.update_unstarted`)."""
    if action["status"] != "running":
        return {}
    return {"status": ActionStatus.PENDING, "attempt": action["attempt"] - 1}


async def _insert_one_off(
    conn: Any,
    tenant_id: str,
    key: str,
    rule: RowMapping | None,
    values: dict[str, Any],
    now: datetime,
) -> int:
    row = values | {
        "tenant_id": tenant_id,
        "key": key,
        "status": ActionStatus.PENDING,
        "created_at": now,
    }
    if rule is not None:
        row |= {
            "rule_id": rule["id"],
            "rule_version": rule["version"],
            "max_attempts": rule["max_attempts"],
            "priority": rule["priority"],
        }
    try:
        async with conn.begin_nested():
            return await action_store.insert_action(conn, row)
    except IntegrityError as exc:
        raise InvalidState(
            f"an action with key {key!r} was submitted at the same moment: submit again"
        ) from exc


async def cancel(deps: Deps, tenant_id: str, action_id: int) -> None:
    """Cancel an action that has not started (pending, or claimed ahead of its due time); a
    rule's own occurrence moves its chain to the next one."""
    now = deps.clock.now()
    async with deps.write() as conn:
        row = await load_action(conn, tenant_id, action_id)
        cancelled = {
            "status": ActionStatus.CANCELLED,
            "reason": SkipReason.USER,
            "finished_at": now,
        }
        if not await action_store.update_unstarted(conn, row, cancelled, now):
            raise InvalidState(
                f"action {action_id} is {row['status']}, only an action that has not started "
                "can be cancelled"
            )
        metrics.count_skips(SkipReason.USER, 1)
        await continue_chains(conn, [due_action(row)], now, deps.config.horizon_years)
    deps.wake(tenant_id)


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
        copy = {
            name: row[name]
            for name in (
                "tenant_id",
                "rule_id",
                "rule_version",
                "runtime",
                "code",
                "params",
                "timeout_ms",
                "memory_mb",
                "scheduled_at",
                "priority",
            )
        }
        copy |= {
            "key": f"retry:{action_id}:{secrets.token_hex(4)}",
            "due_at": now,
            "status": ActionStatus.PENDING,
            "max_attempts": 1,
            "created_at": now,
        }
        if row["rule_id"] is not None:
            rule = await load(conn, tenant_id, row["rule_id"])
            copy["rule_version"] = rule["version"]
        new_id = await action_store.insert_action(conn, copy)
    deps.wake(tenant_id)
    return new_id


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
