"""Rows to records: the store's boundary with the rest of the engine (rows it writes are built
in `engine.store.rows`).

Rules read next to their actions come aliased `r_<column>` (a join); this module is the only
place that knows it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields
from typing import Any

from engine.domain.due import DueAction, RuleSnapshot
from engine.domain.records import ActionStatus, MisfirePolicy, OverlapPolicy
from engine.store.calendar_codec import from_rule_copy

#: Rule columns a snapshot holds besides id and tenant_id.
RULE_COLUMNS = (
    "name", "schedule", "timezone", "dst_gap", "dst_repeat", "runtime", "code", "params",
    "enabled", "version", "misfire_policy", "misfire_grace_s", "overlap_policy",
    "max_attempts", "backoff_s", "backoff_max_s", "timeout_ms", "memory_mb", "priority",
    "jitter_s", "start_at", "end_at", "created_at", "deleted_at", "calendar_dates",
)  # fmt: skip


#: The `actions` columns a due action holds as they are (its status becomes an enum).
_ACTION_COLUMNS = tuple(f.name for f in fields(DueAction) if f.name not in ("status", "rule"))


def rule_snapshot(row: Mapping[Any, Any], prefix: str = "") -> RuleSnapshot:
    """The snapshot of a `rules` row (its columns named `<prefix><column>`)."""
    values = {name: row[prefix + name] for name in RULE_COLUMNS}
    values["misfire_policy"] = MisfirePolicy(values["misfire_policy"])
    values["overlap_policy"] = OverlapPolicy(values["overlap_policy"] or OverlapPolicy.ALLOW)
    values["calendars"] = from_rule_copy(values.pop("calendar_dates"))
    return RuleSnapshot(id=row[f"{prefix}id"], tenant_id=row["tenant_id"], **values)


def due_action(row: Mapping[Any, Any], rule: RuleSnapshot | None = None) -> DueAction:
    """The record of an `actions` row, with its rule."""
    values = {name: row[name] for name in _ACTION_COLUMNS}
    return DueAction(**values, status=ActionStatus(row["status"]), rule=rule)


def joined_due_action(row: Mapping[Any, Any]) -> DueAction:
    """A due action read with its rule's columns aliased `r_<column>` (None: a one-off)."""
    has_rule = row["rule_id"] is not None and row["r_id"] is not None
    return due_action(row, rule_snapshot(row, "r_") if has_rule else None)
