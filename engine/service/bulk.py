"""Pause, resume or delete every rule a filter selects, all in one transaction.

The set is read in the transaction that changes it, and each rule is written only if it is
still the version read: a rule changed meanwhile, or one that cannot be resumed (its schedule
has ended), fails the whole operation and nothing changes. Rules already in the wanted state
are not part of the set, so the same call again changes nothing. A dry run answers the same
set without writing.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from sqlalchemy.engine import RowMapping
from sqlalchemy.ext.asyncio import AsyncConnection

from engine.deps import Deps
from engine.domain.changes import Change
from engine.domain.records import SkipReason
from engine.domain.rule_filters import RuleFilter
from engine.errors import InvalidRule, InvalidState
from engine.service import rule_deletes, rule_writes
from engine.store import rules as rule_store
from tenants.quotas import TenantProfile

#: Most ids an answer lists; `count` is always the whole set's size.
MAX_IDS = 1000


class BulkOperation(StrEnum):
    """What a bulk call does to each selected rule."""

    PAUSE = "pause"
    """Pause the selected rules that are active."""
    RESUME = "resume"
    """Resume the selected rules that are paused."""
    DELETE = "delete"
    """Delete every selected rule."""


@dataclass(frozen=True)
class BulkResult:
    """The rules a bulk call changed (or, in a dry run, would change)."""

    operation: BulkOperation
    dry_run: bool
    count: int
    #: The first MAX_IDS of their ids, in id order.
    ids: tuple[str, ...]


def _targets(operation: BulkOperation, rows: list[RowMapping]) -> list[RowMapping]:
    """The selected rules the operation changes."""
    if operation is BulkOperation.DELETE:
        return rows
    wanted = operation is BulkOperation.RESUME
    return [row for row in rows if bool(row["enabled"]) != wanted]


async def apply(
    deps: Deps, tenant_id: str, operation: BulkOperation, selection: RuleFilter, *, dry_run: bool
) -> BulkResult:
    """Change every rule of `selection` that `operation` changes; with `dry_run`, nothing."""
    if dry_run:
        async with deps.db.connect() as conn:
            targets = await _selected(conn, tenant_id, operation, selection)
    else:
        profile = await deps.profile(tenant_id)
        async with deps.write() as conn:
            targets = await _selected(conn, tenant_id, operation, selection)
            await _write_all(conn, deps, operation, targets, profile)
        deps.wake(tenant_id, Change.CHANGED)
    ids = tuple(row["id"] for row in targets)
    return BulkResult(operation, dry_run, len(ids), ids[:MAX_IDS])


async def _selected(
    conn: AsyncConnection, tenant_id: str, operation: BulkOperation, selection: RuleFilter
) -> list[RowMapping]:
    return _targets(operation, await rule_store.selected_rules(conn, tenant_id, selection))


async def _write_all(
    conn: AsyncConnection,
    deps: Deps,
    operation: BulkOperation,
    targets: list[RowMapping],
    profile: TenantProfile,
) -> None:
    now = deps.clock.now()
    for row in targets:
        if operation is BulkOperation.DELETE:
            written = await rule_deletes.write_delete(conn, row, row["version"], now)
        else:
            written = await _write_toggle(conn, deps, operation, row, profile)
        if not written:
            raise InvalidState(
                f"rule {row['id']!r} changed while the bulk {operation} ran: nothing was "
                "changed; run it again"
            )


async def _write_toggle(
    conn: AsyncConnection,
    deps: Deps,
    operation: BulkOperation,
    row: RowMapping,
    profile: TenantProfile,
) -> bool:
    """Pause or resume one rule as `rule_writes.change` does, in `conn`'s transaction (the
    tenant's profile read once for the whole set, not once per rule)."""
    enabled = operation is BulkOperation.RESUME
    reason = SkipReason.RULE_CHANGED if enabled else SkipReason.PAUSED
    try:
        change = await rule_writes.prepare(deps, row, {"enabled": enabled}, reason, profile)
    except InvalidRule as exc:
        raise InvalidRule(
            f"rules.{row['id']}.{exc.field}",
            f"{exc.reason}; nothing was changed",
            hint="leave this rule out of the selection, or fix it first",
        ) from exc
    return await rule_writes.write_prepared(conn, deps, row, change)
