"""The tenant's key-value data: what scripts read and write through the host API.

Keys and values are bounded here, for every path in (API, scripts, CLI): a key is 1-256
characters of printable text, a value any JSON document of at most 64 KiB once encoded.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import delete, func, select
from sqlalchemy.ext.asyncio import AsyncConnection

from tenants.errors import InvalidInput
from tenants.tables import kv
from tenants.upsert import upsert

MAX_KEY_CHARS = 256
MAX_VALUE_BYTES = 65_536
#: The first key of the kv lock's two (`lock_tenant_kv`): what the lock is for.
KV_LOCK_CLASS = 0x6B76


class _Deleted:
    """Marks a key removed by a batch of writes."""

    def __repr__(self) -> str:
        return "DELETED"


DELETED = _Deleted()


@dataclass(frozen=True)
class Item:
    key: str
    value: Any
    updated_at: datetime


def check_key(key: object) -> str:
    if type(key) is not str or not 1 <= len(key) <= MAX_KEY_CHARS or not key.isprintable():
        raise InvalidInput(
            f"kv key {str(key)[:40]!r} is not valid: use 1-{MAX_KEY_CHARS} printable characters"
        )
    return key


def check_value(value: Any) -> Any:
    """The value as plain JSON types (a copy), or InvalidInput when it is not JSON or too big."""
    try:
        encoded = json.dumps(value, allow_nan=False, separators=(",", ":"))
    except (TypeError, ValueError) as exc:
        raise InvalidInput(f"kv value is not JSON: {exc}") from exc
    if len(encoded.encode()) > MAX_VALUE_BYTES:
        raise InvalidInput(f"kv value is larger than {MAX_VALUE_BYTES} bytes once encoded as JSON")
    return json.loads(encoded)


async def get_item(conn: AsyncConnection, tenant_id: str, key: str) -> Item | None:
    row = (
        await conn.execute(
            select(kv.c.key, kv.c.value, kv.c.updated_at).where(
                kv.c.tenant_id == tenant_id, kv.c.key == key
            )
        )
    ).first()
    return None if row is None else Item(row.key, row.value, row.updated_at)


async def list_items(
    conn: AsyncConnection,
    tenant_id: str,
    *,
    prefix: str = "",
    after: str | None = None,
    limit: int = 100,
) -> list[Item]:
    """Items in key order, starting after key `after` (the cursor), at most `limit`."""
    query = select(kv.c.key, kv.c.value, kv.c.updated_at).where(kv.c.tenant_id == tenant_id)
    if prefix:
        query = query.where(kv.c.key >= prefix, kv.c.key < prefix + "\U0010ffff")
    if after is not None:
        query = query.where(kv.c.key > after)
    rows = await conn.execute(query.order_by(kv.c.key).limit(limit))
    return [Item(r.key, r.value, r.updated_at) for r in rows]


async def apply_writes(conn: AsyncConnection, tenant_id: str, writes: Mapping[str, Any]) -> None:
    """Apply a batch of writes (a value, or DELETED) in the caller's transaction."""
    now = datetime.now(UTC)
    removed = [check_key(k) for k, v in writes.items() if v is DELETED]
    rows = [
        {"tenant_id": tenant_id, "key": check_key(k), "value": check_value(v), "updated_at": now}
        for k, v in writes.items()
        if v is not DELETED
    ]
    await upsert(conn, kv, rows, ("tenant_id", "key"), ("value", "updated_at"))
    if removed:
        await conn.execute(delete(kv).where(kv.c.tenant_id == tenant_id, kv.c.key.in_(removed)))


async def lock_tenant_kv(conn: AsyncConnection, tenant_id: str) -> None:
    """Serialise the tenant's kv writers until the caller's transaction ends, so that no write
    lands between a run's validated reads and its commit (`tenants.kv_snapshot`). On
    PostgreSQL a transaction advisory lock per tenant: writers of different tenants never wait
    for each other. On SQLite a write transaction holds the database's one write lock."""
    if conn.dialect.name == "postgresql":
        tenant_key = zlib.crc32(tenant_id.encode()) - 2**31  # an int4, the same on every node
        await conn.execute(select(func.pg_advisory_xact_lock(KV_LOCK_CLASS, tenant_key)))


async def put_value(conn: AsyncConnection, tenant_id: str, key: str, value: Any) -> None:
    await lock_tenant_kv(conn, tenant_id)
    await apply_writes(conn, tenant_id, {key: value})


async def delete_value(conn: AsyncConnection, tenant_id: str, key: str) -> bool:
    """Remove `key`; False when it did not exist."""
    await lock_tenant_kv(conn, tenant_id)
    result = await conn.execute(delete(kv).where(kv.c.tenant_id == tenant_id, kv.c.key == key))
    return bool(result.rowcount)
