"""Rows to records, and the opaque cursors of every listing."""

from __future__ import annotations

import base64
import binascii
from datetime import datetime
from typing import Any

from sqlalchemy.engine import RowMapping

from engine.domain.records import (
    SPEC_FIELDS,
    Action,
    ActionStatus,
    CallRecord,
    MisfirePolicy,
    OverlapPolicy,
    Rule,
    Run,
)
from engine.errors import InvalidRule

#: The largest id a database row can have (64-bit signed); larger ones cannot exist.
MAX_ID = 2**63 - 1
_ACTION_FIELDS = tuple(Action.__dataclass_fields__)
_RUN_FIELDS = tuple(Run.__dataclass_fields__)


def _bad_cursor() -> InvalidRule:
    return InvalidRule(
        "cursor",
        "the cursor is not one this listing handed out",
        hint="start again without a cursor",
    )


def encode_cursor(value: str | int) -> str:
    return base64.urlsafe_b64encode(str(value).encode()).decode().rstrip("=")


def decode_cursor(cursor: str | None) -> str | None:
    if cursor is None:
        return None
    try:
        return base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
    except (binascii.Error, UnicodeDecodeError, ValueError) as exc:
        raise _bad_cursor() from exc


def decode_int_cursor(cursor: str | None) -> int | None:
    value = decode_cursor(cursor)
    if value is None:
        return None
    if not value.isascii() or not value.isdigit() or int(value) > MAX_ID:
        raise _bad_cursor()
    return int(value)


def rule_from_row(
    row: RowMapping,
    *,
    schedule_text: str,
    next_run_at: datetime | None,
    last_outcome: str | None,
) -> Rule:
    spec: dict[str, Any] = {name: row[name] for name in SPEC_FIELDS}
    spec["misfire_policy"] = MisfirePolicy(spec["misfire_policy"])
    spec["overlap_policy"] = OverlapPolicy(spec["overlap_policy"])
    spec["params"] = dict(spec["params"] or {})
    spec["labels"] = dict(spec["labels"] or {})
    return Rule(
        **spec,
        id=row["id"],
        tenant_id=row["tenant_id"],
        version=row["version"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        next_run_at=next_run_at if row["enabled"] else None,
        schedule_text=schedule_text,
        last_outcome=last_outcome,
    )


def action_from_row(row: RowMapping) -> Action:
    values = {name: row[name] for name in _ACTION_FIELDS}
    values["status"] = ActionStatus(values["status"])
    return Action(**values)


def run_from_row(row: RowMapping) -> Run:
    values = {name: row[name] for name in _RUN_FIELDS if name != "calls"}
    calls = row.get("calls")
    return Run(**values, calls=None if calls is None else tuple(CallRecord(**c) for c in calls))
