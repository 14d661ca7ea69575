"""Rows to records and records to rows: the store's boundary with the rest of the engine.

Rules read next to their actions come aliased `r_<column>` (a join); this module is the only
place that knows it. Every new `actions` row of a planned occurrence is built by `planned_row`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields
from datetime import datetime
from typing import Any

from engine.domain.due import DueAction, Planned, RuleSnapshot
from engine.domain.records import ActionStatus, MisfirePolicy, OverlapPolicy

#: Rule columns a snapshot holds besides id and tenant_id.
RULE_COLUMNS = (
    "name", "schedule", "timezone", "dst_gap", "dst_repeat", "runtime", "code", "params",
    "enabled", "version", "misfire_policy", "misfire_grace_s", "overlap_policy",
    "max_attempts", "backoff_s", "backoff_max_s", "timeout_ms", "memory_mb", "priority",
    "jitter_s", "start_at", "end_at", "created_at", "deleted_at",
)  # fmt: skip


#: The `actions` columns a due action holds as they are (its status becomes an enum).
_ACTION_COLUMNS = tuple(f.name for f in fields(DueAction) if f.name not in ("status", "rule"))


def rule_snapshot(row: Mapping[Any, Any], prefix: str = "") -> RuleSnapshot:
    """The snapshot of a `rules` row (its columns named `<prefix><column>`)."""
    values = {name: row[prefix + name] for name in RULE_COLUMNS}
    values["misfire_policy"] = MisfirePolicy(values["misfire_policy"])
    values["overlap_policy"] = OverlapPolicy(values["overlap_policy"] or OverlapPolicy.ALLOW)
    return RuleSnapshot(id=row[f"{prefix}id"], tenant_id=row["tenant_id"], **values)


def due_action(row: Mapping[Any, Any], rule: RuleSnapshot | None = None) -> DueAction:
    """The record of an `actions` row, with its rule."""
    values = {name: row[name] for name in _ACTION_COLUMNS}
    return DueAction(**values, status=ActionStatus(row["status"]), rule=rule)


def joined_due_action(row: Mapping[Any, Any]) -> DueAction:
    """A due action read with its rule's columns aliased `r_<column>` (None: a one-off)."""
    has_rule = row["rule_id"] is not None and row["r_id"] is not None
    return due_action(row, rule_snapshot(row, "r_") if has_rule else None)


def planned_row(planned: Planned, now: datetime) -> dict[str, Any]:
    """The `actions` row of a planned occurrence: pending, or skipped with its reason."""
    rule = planned.rule
    row = {
        "tenant_id": rule.tenant_id,
        "rule_id": rule.id,
        "rule_version": rule.version,
        "scheduled_at": planned.scheduled_at,
        "due_at": planned.due_at,
        "status": ActionStatus.PENDING,
        "attempt": 0,
        "max_attempts": rule.max_attempts,
        "priority": rule.priority,
        "reason": None,
        "created_at": now,
        "finished_at": None,
        "trace_parent": planned.trace_parent,
    }
    if planned.reason is not None:
        row |= {"status": ActionStatus.SKIPPED, "reason": planned.reason, "finished_at": now}
    return row
