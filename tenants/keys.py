"""API keys: random, shown once, stored as a SHA-256 hash, revocable, each with a role.

Keys carry 190 bits of randomness, so a fast hash is enough (no password stretching needed)
and lets a request be authenticated with one indexed lookup by hash.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from tenants.errors import Conflict, InvalidInput, NotFound
from tenants.ids import new_id
from tenants.tables import api_keys, tenants

KEY_PREFIX = "cdz_"


class Role(StrEnum):
    ADMIN = "admin"
    """Manages the tenant's keys and settings, and everything an editor does."""
    EDITOR = "editor"
    """Creates, edits, pauses and triggers rules; writes data."""
    VIEWER = "viewer"
    """Reads everything of the tenant, changes nothing."""


ROLE_RANK = {Role.VIEWER: 0, Role.EDITOR: 1, Role.ADMIN: 2}


@dataclass(frozen=True)
class ApiKey:
    id: str
    tenant_id: str
    name: str
    prefix: str
    role: Role
    created_at: datetime
    last_used_at: datetime | None
    revoked_at: datetime | None


@dataclass(frozen=True)
class IssuedKey:
    """A freshly created key: `secret` is shown once and never stored."""

    key: ApiKey
    secret: str


def hash_secret(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def row_to_key(row: object) -> ApiKey:
    """The key in `row`, read by column: a row that joins the key's tenant has an `id` and a
    `name` of each."""
    m = row._mapping  # type: ignore[attr-defined]
    return ApiKey(
        id=m[api_keys.c.id],
        tenant_id=m[api_keys.c.tenant_id],
        name=m[api_keys.c.name],
        prefix=m[api_keys.c.prefix],
        role=Role(m[api_keys.c.role]),
        created_at=m[api_keys.c.created_at],
        last_used_at=m[api_keys.c.last_used_at],
        revoked_at=m[api_keys.c.revoked_at],
    )


async def create_key(
    conn: AsyncConnection, tenant_id: str, role: Role | str = Role.ADMIN, name: str = ""
) -> IssuedKey:
    try:
        role = Role(role)
    except ValueError as exc:
        raise InvalidInput(f"unknown role {role!r}: use admin, editor or viewer") from exc
    exists = await conn.scalar(select(tenants.c.id).where(tenants.c.id == tenant_id))
    if exists is None:
        raise NotFound(f"no tenant {tenant_id!r}: list tenants with `cadenza tenant list`")
    secret = KEY_PREFIX + secrets.token_urlsafe(24)
    key = ApiKey(
        id=new_id("k"),
        tenant_id=tenant_id,
        name=name[:100],
        prefix=secret[:12],
        role=role,
        created_at=datetime.now(UTC),
        last_used_at=None,
        revoked_at=None,
    )
    values = {f: getattr(key, f) for f in ("id", "tenant_id", "name", "prefix", "created_at")}
    await conn.execute(
        api_keys.insert().values(**values, role=role.value, hash=hash_secret(secret))
    )
    return IssuedKey(key=key, secret=secret)


async def list_keys(conn: AsyncConnection, tenant_id: str) -> list[ApiKey]:
    rows = await conn.execute(
        select(api_keys).where(api_keys.c.tenant_id == tenant_id).order_by(api_keys.c.created_at)
    )
    return [row_to_key(r) for r in rows]


async def revoke_key(conn: AsyncConnection, key_id: str, tenant_id: str | None = None) -> ApiKey:
    """Revoke a live key; with `tenant_id`, only a key of that tenant is found.

    A key revoked already raises Conflict (with when): the caller learns that this call changed
    nothing, and the first revocation's time is never overwritten."""
    condition = api_keys.c.id == key_id
    if tenant_id is not None:
        condition &= api_keys.c.tenant_id == tenant_id
    revoked = await conn.execute(
        update(api_keys)
        .where(condition, api_keys.c.revoked_at.is_(None))
        .values(revoked_at=datetime.now(UTC))
    )
    row = (await conn.execute(select(api_keys).where(condition))).first()
    if row is None:
        raise NotFound(f"no API key {key_id!r}")
    key = row_to_key(row)
    if revoked.rowcount == 0 and key.revoked_at is not None:
        raise Conflict(
            f"API key {key_id!r} was revoked already, at {key.revoked_at.isoformat()}: "
            "nothing changed"
        )
    return key
