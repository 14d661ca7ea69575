"""The kv writes of a tenant's runs that ended on this node and wait to be recorded.

The completer records ended runs in batches, a few milliseconds after they end. A run that
starts meanwhile reads the tenant's kv through these writes, in the order their runs ended, so
it sees what every run that ended before it wrote: the next run of a counter at
`max_concurrency` 1 reads the previous run's value instead of the stale one and then passes its
validation (`tenants.kv_snapshot`). What it read still is validated: if an earlier run's writes
are not committed after all (a conflict, a lost claim), the later run conflicts and runs again.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

from sqlalchemy.ext.asyncio import AsyncEngine

from tenants.kv import DELETED, get_item, list_items
from tenants.kv_changes import KvWrite, Put, added, is_number

T = TypeVar("T")
#: Reads tried again when runs were recorded while they went to the database (the value
#: would count their writes twice); after that the read stands and its validation decides.
READ_ATTEMPTS = 3


def _over(value: Any, write: KvWrite) -> Any:
    """`value` after `write` (an `Add` to something other than a number will not commit)."""
    if isinstance(write, Put):
        return None if write.value is DELETED else write.value
    return added(value, write.amount) if value is None or is_number(value) else value


class UnrecordedWrites:
    """One tenant's ended-but-unrecorded writes, by action id, in the order the runs ended."""

    def __init__(self) -> None:
        self._entries: dict[int, Mapping[str, KvWrite]] = {}
        self._recorded = 0

    def add(self, action_id: int, writes: Mapping[str, KvWrite]) -> None:
        if writes:
            self._entries[action_id] = writes

    def discard(self, action_id: int) -> None:
        """The run was recorded (committed or not): its writes are the database's now."""
        if self._entries.pop(action_id, None) is not None:
            self._recorded += 1

    async def value(self, db: AsyncEngine, tenant_id: str, key: str) -> Any:
        """The key's value as the database has it, after every unrecorded write of it."""

        async def read() -> Any:
            async with db.connect() as conn:
                item = await get_item(conn, tenant_id, key)
            return None if item is None else item.value

        value, entries = await self._consistent(read)
        for writes in entries:
            if key in writes:
                value = _over(value, writes[key])
        return value

    async def keys(self, db: AsyncEngine, tenant_id: str, prefix: str, limit: int) -> list[str]:
        """The first `limit` keys with `prefix`, after every unrecorded write."""

        async def read() -> list[str]:
            async with db.connect() as conn:
                items = await list_items(conn, tenant_id, prefix=prefix, limit=limit)
            return [item.key for item in items]

        found, entries = await self._consistent(read)
        keys = set(found)
        for writes in entries:
            for key, write in writes.items():
                if not key.startswith(prefix):
                    continue
                if write == Put(DELETED):
                    keys.discard(key)
                else:
                    keys.add(key)
        return sorted(keys)[:limit]

    async def _consistent(
        self, read: Callable[[], Awaitable[T]]
    ) -> tuple[T, list[Mapping[str, KvWrite]]]:
        """`read()` and the entries to lay over it, taken so that no run was recorded while
        the read went to the database (its writes would be in both)."""
        for _ in range(READ_ATTEMPTS):
            recorded, entries = self._recorded, list(self._entries.values())
            found = await read()
            if recorded == self._recorded:
                break
        return found, entries
