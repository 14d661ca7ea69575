"""The audit log: who changed what in a tenant, through which route, and when.

Rows are only ever appended (there is no statement here that updates or deletes one). Each
row carries digests, never values: `after_digest` hashes what the change wrote, chained to the
object's previous row (`before_digest` is that row's `after_digest`), so a missing or rewritten
row breaks the chain and shows. What is written is captured by `api.audit_hook` inside the
change's own transaction.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, insert, select
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncConnection

from tenants.tables import audit_log

#: The actor of a change made with the operator token.
OPERATOR = "operator"


@dataclass(frozen=True)
class AuditFacts:
    """What a row says about a change: who, through which route, on which object, when."""

    tenant_id: str
    at: datetime
    actor: str
    actor_prefix: str | None
    method: str
    route: str
    object_kind: str
    object_id: str
    request_id: str


@dataclass(frozen=True)
class AuditDraft(AuditFacts):
    """A change about to commit: its facts and what it wrote, before its digests are chained."""

    written: tuple[tuple[str, str, Any], ...]
    """(table, statement kind, parameters) of each statement the change ran, in order."""


@dataclass(frozen=True)
class AuditEntry(AuditFacts):
    """One row of the log, as the API shows it."""

    id: int
    before_digest: str | None
    after_digest: str


@dataclass(frozen=True)
class AuditFilter:
    """Which rows a reader wants; None matches any."""

    object_kind: str | None = None
    object_id: str | None = None
    actor: str | None = None
    since: datetime | None = None
    until: datetime | None = None


def digest(before: str | None, written: tuple[tuple[str, str, Any], ...]) -> str:
    """SHA-256 of the previous digest and what was written (secrets are written sealed, so
    only their ciphertext is ever hashed)."""
    text = json.dumps([before, written], sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


#: The object's latest row's digest, and a new row: built once (a statement built per call
#: costs SQLAlchemy a cache key of every value, several times the statement's own run).
_PREVIOUS = (
    select(audit_log.c.after_digest)
    .where(
        audit_log.c.tenant_id == bindparam("p_tenant"),
        audit_log.c.object_kind == bindparam("p_kind"),
        audit_log.c.object_id == bindparam("p_object"),
    )
    .order_by(audit_log.c.id.desc())
    .limit(1)
)
_APPEND = insert(audit_log)


def append(conn: Connection, draft: AuditDraft) -> None:
    """Append the row of `draft`, chained to its object's previous row (synchronous: it runs
    inside the commit of the change it records)."""
    of_object = {
        "p_tenant": draft.tenant_id,
        "p_kind": draft.object_kind,
        "p_object": draft.object_id,
    }
    previous = conn.execute(_PREVIOUS, of_object).scalar()
    values = {k: v for k, v in vars(draft).items() if k != "written"}
    after = digest(previous, draft.written)
    conn.execute(_APPEND, values | {"before_digest": previous, "after_digest": after})


async def list_entries(
    conn: AsyncConnection, tenant_id: str, wanted: AuditFilter, after_id: int | None, limit: int
) -> list[AuditEntry]:
    """The tenant's rows matching `wanted`, oldest first, after row `after_id`."""
    c = audit_log.c
    query = select(audit_log).where(c.tenant_id == tenant_id).order_by(c.id).limit(limit)
    conditions = {
        c.object_kind: wanted.object_kind,
        c.object_id: wanted.object_id,
        c.actor: wanted.actor,
    }
    for column, value in conditions.items():
        if value is not None:
            query = query.where(column == value)
    if wanted.since is not None:
        query = query.where(c.at >= wanted.since)
    if wanted.until is not None:
        query = query.where(c.at < wanted.until)
    if after_id is not None:
        query = query.where(c.id > after_id)
    return [AuditEntry(**row) for row in (await conn.execute(query)).mappings()]
