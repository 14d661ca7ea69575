"""Compile once, run many: what validating a script produced, keyed by its content hash."""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from dataclasses import dataclass

from sandbox.errors import ScriptRejected
from sandbox.source import decode_script


@dataclass(frozen=True)
class Compiled:
    """A script that compiled (`artifact` is runtime-specific) or was rejected (`reason`)."""

    artifact: bytes | None = None
    reason: str | None = None
    line: int | None = None


def content_key(*parts: bytes | str) -> str:
    """sha256 over the parts (script bytes plus whatever versions the artifact depends on)."""
    digest = hashlib.sha256()
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        digest.update(len(data).to_bytes(8, "big") + data)
    return digest.hexdigest()


class CompileCache:
    """A bounded in-memory LRU of compile results."""

    def __init__(self, max_entries: int = 4096) -> None:
        self._entries: OrderedDict[str, Compiled] = OrderedDict()
        self._max_entries = max_entries

    def get(self, key: str) -> Compiled | None:
        entry = self._entries.get(key)
        if entry is not None:
            self._entries.move_to_end(key)
        return entry

    def lookup(
        self, script: str | bytes, kind: str, max_bytes: int
    ) -> tuple[str, str, Compiled | None]:
        """(source text, cache key, entry or None) for a python/micropython script; raises
        ScriptRejected if it is not acceptable text or was rejected before."""
        source = decode_script(script, max_bytes)
        key = content_key(kind, source)
        entry = self.get(key)
        if entry is not None and entry.reason is not None:
            raise ScriptRejected(entry.reason, entry.line)
        return source, key, entry

    def put(self, key: str, entry: Compiled) -> None:
        self._entries[key] = entry
        self._entries.move_to_end(key)
        while len(self._entries) > self._max_entries:
            self._entries.popitem(last=False)
