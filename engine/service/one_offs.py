"""One-off actions: a script (or a rule's) run once at `run_at`, idempotent by key.

A second submission with a key already used updates the pending action instead of adding one,
so a client may retry a submit whose answer it lost. A one-off may carry `expires_at` (not
started by then, it is expired rather than run late, `engine.domain.policies`) and its own
`priority`.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.engine import RowMapping
from sqlalchemy.exc import IntegrityError

from engine.deps import Deps
from engine.domain.changes import Change
from engine.domain.records import ActionStatus, RuleSpec
from engine.domain.validation import check_code, require_aware
from engine.errors import InvalidRule, InvalidState
from engine.ops import tracing
from engine.service.rule_writes import load
from engine.store import actions as action_store
from engine.store.rows import NewAction
from sandbox import RuntimeName

_DEFAULTS = RuleSpec(name="-", schedule="-", code="")


@dataclass(frozen=True)
class Submitted:
    """Where a submission went: a new action, or the one its key named already."""

    action_id: int
    is_new: bool


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
    expires_at: datetime | None = None,
    priority: int | None = None,
) -> Submitted:
    """A one-off at `run_at`; with a key already used, the pending action is updated instead.

    Not started by `expires_at`, it is expired (an `action.expired` event) rather than run late;
    `priority` orders it among actions due at once (default: its rule's, or 0)."""
    require_aware("run_at", run_at)
    _check_expiry(run_at, expires_at)
    if (rule_id is None) == (code is None):
        raise InvalidRule("code", "give either rule_id or code (and runtime), not both or neither")
    profile = await deps.profile(tenant_id)
    timeout_ms = min(_DEFAULTS.timeout_ms, profile.quotas.max_timeout_ms)
    if code is not None:
        await check_code(deps.sandbox, runtime or RuntimeName.PYTHON, code, timeout_ms)
    now = deps.clock.now()
    values: dict[str, Any] = {"scheduled_at": run_at, "due_at": run_at, "params": params}
    values |= {"expires_at": expires_at}
    if priority is not None:
        values["priority"] = priority
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
            submitted = Submitted(int(existing["id"]), is_new=False)
        else:
            rule = await load(conn, tenant_id, rule_id) if rule_id is not None else None
            action_id = await _insert_one_off(conn, tenant_id, key, rule, values, now)
            submitted = Submitted(action_id, is_new=True)
    deps.wake(tenant_id, Change.ADDED if submitted.is_new else Change.CHANGED)
    return submitted


def _check_expiry(run_at: datetime, expires_at: datetime | None) -> None:
    if expires_at is None:
        return
    require_aware("expires_at", expires_at)
    if expires_at <= run_at:
        raise InvalidRule(
            "expires_at",
            f"{expires_at.isoformat()} is not after run_at {run_at.isoformat()}",
            hint="give an instant after run_at, or leave expires_at out to wait however long",
        )


def _unclaimed(action: RowMapping) -> dict[str, Any]:
    """An action claimed ahead goes back to pending, its attempt not counted (it never ran
    with effect: see `engine.store.actions.update_unstarted`)."""
    if action["status"] != ActionStatus.RUNNING:
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
    """Insert the one-off: its own script, or its rule's (then its attempts and, unless
    given, its priority are the rule's)."""
    if rule is not None:
        of_rule = {"rule_id": rule["id"], "rule_version": rule["version"]}
        of_rule["max_attempts"] = rule["max_attempts"]
        values = {"priority": rule["priority"]} | values | of_rule
    new = NewAction(tenant_id=tenant_id, key=key, **values)
    try:  # no savepoint: the refusal rolls the whole submission back
        return await action_store.insert_action(conn, new, now)
    except IntegrityError as exc:
        raise InvalidState(
            f"an action with key {key!r} was submitted at the same moment: submit again"
        ) from exc
