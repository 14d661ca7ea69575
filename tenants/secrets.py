"""The one place a tenant's secrets are stored and read: `tenant_secrets`, sealed by `SecretBox`.

Each secret has a purpose (`SecretPurpose`), is sealed with the tenant and purpose as its
context, and carries a hint (its first characters, safe to show). A secret is current until it
is retired; a retired one keeps working until its `retires_at` (an overlap window, so that a
receiver can roll over without losing anything), then it is deleted. Rotating the operator key
re-seals every row in place (`reseal_batch`), whatever its purpose.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import Select, delete, func, or_, select, update
from sqlalchemy.engine import RowMapping
from sqlalchemy.ext.asyncio import AsyncConnection

from tenants.secret_box import FORMAT, SecretBox
from tenants.tables import tenant_secrets

#: Rows of a plain-text secret copied by migration 0007, waiting for the operator key.
LEGACY = "legacy."


class SecretPurpose(StrEnum):
    """What a stored secret is for (the `purpose` column)."""

    WEBHOOK_SIGNING = "webhook_signing"
    """Signs the tenant's webhook deliveries (HMAC-SHA256)."""
    SCRIPT = "script"
    """A named value the tenant's scripts read (`tenants.tenant_secrets`)."""


@dataclass(frozen=True)
class StoredSecret:
    """A secret as opened for use: its value, hint, and until when it still works."""

    value: str
    hint: str
    retires_at: datetime | None


def context_of(tenant_id: str, purpose: SecretPurpose, name: str | None = None) -> str:
    """What a secret is sealed to (AES-GCM associated data): a sealed value copied onto
    another tenant's, purpose's or name's row does not open."""
    return f"{tenant_id}/{purpose}" if name is None else f"{tenant_id}/{purpose}/{name}"


async def add(
    conn: AsyncConnection,
    box: SecretBox,
    tenant_id: str,
    purpose: SecretPurpose,
    value: str,
    hint: str,
    now: datetime,
) -> None:
    """Store `value` as the tenant's current secret for `purpose`."""
    await conn.execute(
        tenant_secrets.insert().values(
            tenant_id=tenant_id,
            purpose=str(purpose),
            sealed=box.seal(value, context_of(tenant_id, purpose)),
            hint=hint,
            created_at=now,
        )
    )


async def retire(
    conn: AsyncConnection, tenant_id: str, purpose: SecretPurpose, until: datetime, now: datetime
) -> None:
    """The tenant's current secret for `purpose` keeps working until `until` (if that is after
    `now`); secrets retired before are deleted: one previous secret at most works beside the
    current one, and none stays stored past its use."""
    mine = (tenant_secrets.c.tenant_id == tenant_id) & (tenant_secrets.c.purpose == str(purpose))
    current = tenant_secrets.c.retires_at.is_(None)
    await conn.execute(delete(tenant_secrets).where(mine, ~current))
    if until <= now:
        await conn.execute(delete(tenant_secrets).where(mine, current))
    else:
        await conn.execute(update(tenant_secrets).where(mine, current).values(retires_at=until))


def _live(tenant_ids: Sequence[str], purpose: SecretPurpose, now: datetime) -> Select[Any]:
    """The tenants' rows for `purpose` that still work at `now`, newest first."""
    return (
        select(tenant_secrets)
        .where(
            tenant_secrets.c.tenant_id.in_(set(tenant_ids)),
            tenant_secrets.c.purpose == str(purpose),
            or_(tenant_secrets.c.retires_at.is_(None), tenant_secrets.c.retires_at > now),
        )
        .order_by(tenant_secrets.c.id.desc())
    )


async def live(
    conn: AsyncConnection,
    box: SecretBox,
    tenant_ids: Sequence[str],
    purpose: SecretPurpose,
    now: datetime,
) -> dict[str, list[StoredSecret]]:
    """Each tenant's secrets for `purpose` that still work at `now`, newest first, opened."""
    found: dict[str, list[StoredSecret]] = {}
    for row in (await conn.execute(_live(tenant_ids, purpose, now))).mappings():
        value = box.open(row["sealed"], context_of(row["tenant_id"], purpose))
        found.setdefault(row["tenant_id"], []).append(
            StoredSecret(value, row["hint"], row["retires_at"])
        )
    return found


async def hints(
    conn: AsyncConnection, tenant_id: str, purpose: SecretPurpose, now: datetime
) -> list[tuple[str, datetime | None]]:
    """(hint, retires_at) of the tenant's live secrets, newest first: nothing is opened."""
    rows = (await conn.execute(_live([tenant_id], purpose, now))).mappings()
    return [(row["hint"], row["retires_at"]) for row in rows]


async def reseal_batch(conn: AsyncConnection, box: SecretBox, after_id: int, limit: int) -> int:
    """Re-seal under the primary key (and seal plain-text legacy rows) the next `limit` rows
    after `after_id`; returns the last id looked at, or -1 past the end. Each row is written
    only if it is unchanged since read, so a secret rotated meanwhile is left as it is now."""
    query = (
        select(tenant_secrets)
        .where(tenant_secrets.c.id > after_id)
        .order_by(tenant_secrets.c.id)
        .limit(limit)
    )
    rows = list((await conn.execute(query)).mappings())
    for row in rows:
        await _reseal_row(conn, box, row)
    return rows[-1]["id"] if rows else -1


async def has_legacy(conn: AsyncConnection) -> bool:
    """Whether plain-text rows left by migration 0007 wait to be sealed."""
    query = select(tenant_secrets.c.id).where(tenant_secrets.c.sealed.like(f"{LEGACY}%"))
    return (await conn.execute(query.limit(1))).first() is not None


async def seal_legacy(conn: AsyncConnection, box: SecretBox) -> int:
    """Seal every plain-text row left by migration 0007; how many there were."""
    query = select(tenant_secrets).where(tenant_secrets.c.sealed.like(f"{LEGACY}%"))
    rows = list((await conn.execute(query)).mappings())
    for row in rows:
        await _reseal_row(conn, box, row)
    return len(rows)


async def _reseal_row(conn: AsyncConnection, box: SecretBox, row: RowMapping) -> None:
    context = context_of(row["tenant_id"], SecretPurpose(row["purpose"]), row["name"])
    sealed = row["sealed"]
    if sealed.startswith(LEGACY):
        new: str | None = box.seal(sealed.removeprefix(LEGACY), context)
    else:
        new = box.reseal(sealed, context)
    if new is not None:
        await conn.execute(
            update(tenant_secrets)
            .where(tenant_secrets.c.id == row["id"], tenant_secrets.c.sealed == sealed)
            .values(sealed=new)
        )


async def key_ids_in_use(conn: AsyncConnection) -> dict[str, int]:
    """{key id: rows sealed with it}; plain-text legacy rows count under `legacy`."""
    prefix = func.substr(tenant_secrets.c.sealed, 1, len(FORMAT) + 10)
    query = select(prefix, func.count()).group_by(prefix)
    counts: dict[str, int] = {}
    for head, count in await conn.execute(query):
        name = head.split(".")[1] if head.startswith(f"{FORMAT}.") else "legacy"
        counts[name] = counts.get(name, 0) + count
    return counts
