"""The engine's side of the host API for one run: tenant-scoped, with buffered writes.

A script reads its own writes; nothing reaches the database until the run's completion
transaction, and only if the claim still holds — so a repeated execution takes effect once.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.ext.asyncio import AsyncEngine

from tenants.kv import DELETED, check_key, check_value, get_item, list_items

#: Most keys one kv_keys call returns.
MAX_KEYS = 1000


class BufferedHost:
    """HostApi for one run of one tenant: reads go to the database, writes to a buffer."""

    def __init__(self, db: AsyncEngine, tenant_id: str) -> None:
        self._db = db
        self._tenant_id = tenant_id
        self.writes: dict[str, Any] = {}

    async def kv_get(self, key: str) -> Any | None:
        check_key(key)
        if key in self.writes:
            value = self.writes[key]
            return None if value is DELETED else value
        async with self._db.connect() as conn:
            item = await get_item(conn, self._tenant_id, key)
        return None if item is None else item.value

    async def kv_set(self, key: str, value: Any) -> None:
        self.writes[check_key(key)] = check_value(value)

    async def kv_delete(self, key: str) -> None:
        self.writes[check_key(key)] = DELETED

    async def kv_keys(self, prefix: str) -> list[str]:
        async with self._db.connect() as conn:
            items = await list_items(conn, self._tenant_id, prefix=prefix, limit=MAX_KEYS)
        keys = {item.key for item in items}
        for key, value in self.writes.items():
            if key.startswith(prefix):
                if value is DELETED:
                    keys.discard(key)
                else:
                    keys.add(key)
        return sorted(keys)[:MAX_KEYS]
