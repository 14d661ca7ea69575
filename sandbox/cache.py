"""Compile once, run many: verdicts on scripts, and code compiled for each tenant.

Both live in the engine, which never compiles or loads tenant code itself: workers do.

- `Verdicts`: whether a script may run (or why not), by content hash, for every tenant: a
  verdict depends only on the script. Only definitive ones are kept (a script that took too
  long to check under one save's limits may pass under another's).
- `Artifacts`: code a tenant's worker compiled (python bytecode, a serialised wasm module),
  handed to that same tenant's later workers so they only load it. Keyed by tenant as well as
  by content: an artifact comes from a process that ran tenant code, so it is never given to
  another tenant's worker. Bounded in bytes, in memory only: after a restart a tenant's
  first run of a module compiles it again, in its worker, under that run's limits.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from dataclasses import dataclass


@dataclass(frozen=True)
class Verdict:
    """A script that may run (`reason` None) or was rejected, and where."""

    reason: str | None = None
    line: int | None = None


def content_key(*parts: bytes | str) -> str:
    """sha256 over the parts (script bytes plus whatever versions the result depends on)."""
    digest = hashlib.sha256()
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        digest.update(len(data).to_bytes(8, "big") + data)
    return digest.hexdigest()


class Verdicts:
    """A bounded in-memory LRU of verdicts by script key."""

    def __init__(self, max_entries: int = 4096) -> None:
        self._entries: OrderedDict[str, Verdict] = OrderedDict()
        self._max_entries = max_entries

    def get(self, key: str) -> Verdict | None:
        entry = self._entries.get(key)
        if entry is not None:
            self._entries.move_to_end(key)
        return entry

    def put(self, key: str, verdict: Verdict) -> None:
        self._entries[key] = verdict
        self._entries.move_to_end(key)
        while len(self._entries) > self._max_entries:
            self._entries.popitem(last=False)


class Artifacts:
    """Compiled code per (tenant, script key), at most `max_bytes` (least recently used first
    out), for this process's life."""

    def __init__(self, max_bytes: int) -> None:
        self._max_bytes = max_bytes
        self._entries: OrderedDict[tuple[str, str], bytes] = OrderedDict()
        self._size_bytes = 0

    def get(self, tenant_id: str, key: str) -> bytes | None:
        data = self._entries.get((tenant_id, key))
        if data is not None:
            self._entries.move_to_end((tenant_id, key))
        return data

    def put(self, tenant_id: str, key: str, data: bytes) -> None:
        slot = (tenant_id, key)
        self._size_bytes += len(data) - len(self._entries.pop(slot, b""))
        self._entries[slot] = data
        while self._size_bytes > self._max_bytes and len(self._entries) > 1:
            self._size_bytes -= len(self._entries.popitem(last=False)[1])
