"""Rule versions: each saved definition of a rule, appended in the transaction that saves it.

A version holds the rule's full `RuleSpec` as JSON (instants as ISO 8601 text), so reading one
needs nothing but its row, and a rollback re-applies it as an edit.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import insert, select
from sqlalchemy.ext.asyncio import AsyncConnection

from engine.domain.records import RuleSpec
from engine.store.rows import rule_columns
from engine.store.tables import rule_versions

_INSTANTS = ("start_at", "end_at")


@dataclass(frozen=True)
class RuleVersion:
    """One saved definition of a rule."""

    rule_id: str
    version: int
    created_at: datetime
    spec: RuleSpec


def _as_json(spec: RuleSpec) -> dict[str, Any]:
    values = rule_columns(spec)
    for name in _INSTANTS:
        values[name] = None if values[name] is None else values[name].isoformat()
    return values


def _spec(stored: dict[str, Any]) -> RuleSpec:
    values = dict(stored)
    for name in _INSTANTS:
        values[name] = None if values[name] is None else datetime.fromisoformat(values[name])
    return RuleSpec(**values)


async def record(
    conn: AsyncConnection, tenant_id: str, rule_id: str, version: int, spec: RuleSpec, now: datetime
) -> None:
    """Append version `version` of the rule, defined by `spec`."""
    row = {"rule_id": rule_id, "version": version, "tenant_id": tenant_id, "created_at": now}
    await conn.execute(insert(rule_versions).values(**row, spec=_as_json(spec)))


async def list_versions(
    conn: AsyncConnection, tenant_id: str, rule_id: str, after: int | None, limit: int
) -> list[RuleVersion]:
    """The rule's versions in order, after version `after`."""
    c = rule_versions.c
    query = select(rule_versions).where(c.tenant_id == tenant_id, c.rule_id == rule_id)
    if after is not None:
        query = query.where(c.version > after)
    rows = await conn.execute(query.order_by(c.version).limit(limit))
    return [_version(row) for row in rows.mappings()]


async def get_version(
    conn: AsyncConnection, tenant_id: str, rule_id: str, version: int
) -> RuleVersion | None:
    c = rule_versions.c
    query = select(rule_versions).where(
        c.tenant_id == tenant_id, c.rule_id == rule_id, c.version == version
    )
    row = (await conn.execute(query)).mappings().first()
    return None if row is None else _version(row)


def _version(row: Any) -> RuleVersion:
    return RuleVersion(row["rule_id"], row["version"], row["created_at"], _spec(row["spec"]))
