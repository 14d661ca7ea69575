"""Committing runs' kv changes in the caller's transaction: each run's checks are validated
against the tenant's values as earlier runs of the same batch left them, in order, and only the
runs whose checks hold have their writes applied.

Every writer of a tenant's kv takes the tenant's kv lock first (`tenants.kv.lock_tenant_kv`),
so no other write lands between a validation and the commit that follows it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncConnection

from tenants.kv import DELETED, apply_writes, list_items, lock_tenant_kv
from tenants.kv_changes import Add, KvChanges, Put, is_number
from tenants.tables import kv

#: Keys read per statement.
CHUNK = 500


class Snapshot:
    """The tenant's values that a batch of changes reads, as the batch goes."""

    def __init__(self, values: dict[str, Any], bounds: dict[str, str | None]) -> None:
        self._values = values
        #: prefix -> the last key loaded for it when more exist beyond (None: all loaded).
        self._bounds = bounds
        self._changed: set[str] = set()

    def value(self, key: str) -> Any:
        return self._values.get(key)

    def keys_with(self, prefix: str, limit: int) -> list[str]:
        bound = self._bounds.get(prefix)
        keys = sorted(
            k for k in self._values if k.startswith(prefix) and (bound is None or k <= bound)
        )
        return keys[:limit]

    def apply(self, changes: KvChanges) -> str | None:
        """Apply `changes` if every check holds; else what changed (and nothing is applied)."""
        broken = next((check.broken for check in changes.checks if not check.holds(self)), None)
        if broken is not None:
            return broken
        adds = [key for key, write in changes.writes.items() if isinstance(write, Add)]
        if not all(self.value(key) is None or is_number(self.value(key)) for key in adds):
            return "a key the run incremented no longer holds a number"
        final = changes.final_values(self._values)
        if any(isinstance(final[key], float) and not math.isfinite(final[key]) for key in adds):
            return "an increment overflowed"
        for key, value in final.items():
            if value is DELETED:
                self._values.pop(key, None)
            else:
                self._values[key] = value
            self._changed.add(key)
        return None

    def writes(self) -> dict[str, Any]:
        """key -> final value (or DELETED) of every key some applied change wrote."""
        return {key: self._values.get(key, DELETED) for key in self._changed}


async def commit_changes(
    conn: AsyncConnection, tenant_id: str, batch: Sequence[KvChanges]
) -> list[str | None]:
    """Validate and apply each of one tenant's changes in order: for each, None when applied,
    else what changed under it."""
    await lock_tenant_kv(conn, tenant_id)
    snapshot = await _load(conn, tenant_id, batch)
    applied = [snapshot.apply(changes) for changes in batch]
    await apply_writes(conn, tenant_id, snapshot.writes())
    return applied


async def _load(conn: AsyncConnection, tenant_id: str, batch: Sequence[KvChanges]) -> Snapshot:
    keys = sorted(set().union(*(changes.keys for changes in batch)))
    values: dict[str, Any] = {}
    for start in range(0, len(keys), CHUNK):
        query = select(kv.c.key, kv.c.value).where(
            kv.c.tenant_id == tenant_id, kv.c.key.in_(keys[start : start + CHUNK])
        )
        values.update((row.key, row.value) for row in await conn.execute(query))
    bounds = {}
    # A removal earlier in the batch may bring a key that was past a listing's limit into it.
    removals = sum(w == Put(DELETED) for changes in batch for w in changes.writes.values())
    for prefix, limit in _listed_prefixes(batch).items():
        wanted = limit + removals + 1
        items = await list_items(conn, tenant_id, prefix=prefix, limit=wanted)
        values.update((item.key, item.value) for item in items)
        bounds[prefix] = items[-1].key if len(items) == wanted else None
    return Snapshot(values, bounds)


def _listed_prefixes(batch: Sequence[KvChanges]) -> dict[str, int]:
    """prefix -> the largest listing limit any change relied on."""
    prefixes: dict[str, int] = {}
    for changes in batch:
        for listed in changes.listings:
            prefixes[listed.prefix] = max(prefixes.get(listed.prefix, 0), listed.limit)
    return prefixes
