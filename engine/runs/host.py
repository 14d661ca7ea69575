"""The engine's side of the host API for one run: tenant-scoped, with buffered writes.

A script reads its own writes; nothing reaches the database until the run's completion
transaction, and only if the claim still holds and every read the writes rest on still holds
(`tenants.kv_changes`): a repeated execution takes effect once, and two runs of one tenant
never lose each other's updates. Reads see the database through the writes of the tenant's
runs that ended on this node and are not recorded yet (`engine.runs.unrecorded`). A key read twice
reads the same value (the run's view is repeatable); `incr` reads nothing the script sees, so
runs that only increment never conflict.
"""

from __future__ import annotations

import math
import time
from collections.abc import Awaitable, Callable
from dataclasses import asdict
from typing import Any, TypeVar

from sqlalchemy.ext.asyncio import AsyncEngine

from engine.domain.records import CallRecord
from engine.loop.backoff import Backoff
from engine.runs.capability_calls import CapabilityCalls
from engine.runs.deadline import RunDeadline
from engine.runs.follow_ups import FollowUps
from engine.runs.outbound_http import OutboundHttp
from engine.runs.script_secrets import ScriptSecrets
from engine.runs.unrecorded import UnrecordedWrites
from engine.store.faults import is_unavailable
from sandbox import clean_json
from tenants.kv import DELETED, check_key, check_value
from tenants.kv_changes import (
    Add,
    Check,
    KvChanges,
    KvWrite,
    Listed,
    Matched,
    Put,
    Saw,
    WasNumber,
    added,
    is_number,
    same_value,
    then,
)

T = TypeVar("T")
#: Most keys one kv_keys call returns.
MAX_KEYS = 1000


class BufferedHost:
    """HostApi for one run of one tenant: reads go to the database, writes to a buffer."""

    def __init__(
        self,
        db: AsyncEngine,
        tenant_id: str,
        unrecorded: UnrecordedWrites | None = None,
        patience_s: float = 5.0,
        secrets: ScriptSecrets | None = None,
        http: OutboundHttp | None = None,
        follow_ups: FollowUps | None = None,
        capabilities: CapabilityCalls | None = None,
        deadline: RunDeadline | None = None,
    ) -> None:
        self._db = db
        #: When the run's limit ends for its HTTP and capability calls (started by `begin`).
        self._deadline = deadline
        #: The tenant's secrets as this run sees them (None: the run may read none).
        self.secrets = secrets or ScriptSecrets(db, None, tenant_id)
        #: The run's outbound HTTP (None: the run may make none).
        self.http = http
        #: The actions the run planned (None: it may plan none).
        self.follow_ups = follow_ups
        #: The run's capability calls (None: the run may make none).
        self.capabilities = capabilities
        #: Every outbound call of the run in the order it was made (HTTP and capabilities).
        self._calls: list[CallRecord] = []
        self._tenant_id = tenant_id
        self._unrecorded = unrecorded or UnrecordedWrites()
        #: How long a read waits for an unreachable database (the run's time limit).
        self._patience_s = patience_s
        #: Why the database could not be read, if it could not at some point of the run.
        self.outage: str | None = None
        self._writes: dict[str, KvWrite] = {}
        self._checks: list[Check] = []
        #: key -> its value when the run first read it (the run's view is repeatable).
        self._bases: dict[str, Any] = {}
        #: Keys whose value the script was shown: a `Saw` check covers them.
        self._shown: set[str] = set()

    def begin(self) -> None:
        if self._deadline is not None:
            self._deadline.start()

    def changes(self) -> KvChanges:
        return KvChanges(dict(self._writes), tuple(self._checks))

    def preview(self) -> dict[str, Any]:
        """key -> the value the run would leave (None where it would delete the key)."""
        final = self.changes().final_values(self._bases)
        return {key: None if value is DELETED else value for key, value in final.items()}

    async def kv_get(self, key: str) -> Any | None:
        write = self._writes.get(check_key(key))
        if isinstance(write, Put):
            return None if write.value is DELETED else write.value
        value = await self._show(key)
        return value if write is None else added(value, write.amount)

    async def kv_set(self, key: str, value: Any) -> None:
        self._writes[check_key(key)] = Put(storable(value))

    async def kv_delete(self, key: str) -> None:
        self._writes[check_key(key)] = Put(DELETED)

    async def kv_incr(self, key: str, by: int | float) -> None:
        if not is_number(by) or not math.isfinite(by):
            raise ValueError(f"kv.incr({key!r}, …): the amount must be a finite number")
        write = self._writes.get(check_key(key))
        if write is None:
            self._require_number(key, await self._base(key))
            self._checks.append(WasNumber(key))
        elif isinstance(write, Put):
            self._require_number(key, write.value)
        self._writes[key] = then(write, Add(by))

    async def kv_set_if(self, key: str, expected: Any, value: Any) -> bool:
        write = self._writes.get(check_key(key))
        expected, value = check_value(expected), storable(value)
        if isinstance(write, Put):
            answer = same_value(write.value, expected)
        elif write is None and key not in self._shown:
            answer = same_value(await self._base(key), expected)
            self._checks.append(Matched(key, expected, answer))
        else:
            current = await self._show(key)
            answer = same_value(
                current if write is None else added(current, write.amount), expected
            )
        if answer:
            self._writes[key] = Put(value)
        return answer

    async def kv_keys(self, prefix: str) -> list[str]:
        deletes = sum(
            1 for k, w in self._writes.items() if k.startswith(prefix) and w == Put(DELETED)
        )
        limit = MAX_KEYS + deletes
        seen = await self._patiently(
            lambda: self._unrecorded.keys(self._db, self._tenant_id, prefix, limit)
        )
        self._checks.append(Listed(prefix, tuple(seen), limit))
        keys = set(seen)
        for key, write in self._writes.items():
            if key.startswith(prefix):
                (keys.discard if write == Put(DELETED) else keys.add)(key)
        return sorted(keys)[:MAX_KEYS]

    async def secret_get(self, name: str) -> str | None:
        return await self.secrets.get(name)

    async def http_request(
        self, method: str, url: str, headers: dict[str, str], body: str | None
    ) -> dict[str, Any]:
        if self.http is None:
            raise ValueError("HTTP requests are not available to this run")
        return await self._noted(self.http.records, self.http.request(method, url, headers, body))

    async def capability_call(self, name: str, args: Any) -> Any:
        if self.capabilities is None:
            raise ValueError("capabilities are not available to this run")
        calls = self.capabilities
        return await self._noted(calls.records, calls.call(name, args))

    async def schedule(self, run_at: str, params: dict[str, Any] | None, key: str | None) -> str:
        if self.follow_ups is None:
            raise ValueError("this run cannot schedule follow-ups")
        return self.follow_ups.add(run_at, params, key)

    def call_records(self) -> list[dict[str, Any]] | None:
        """The run's outbound calls as recorded on it, in order (None: it made none)."""
        return [asdict(r) for r in self._calls] or None

    async def _noted(self, records: list[CallRecord], call: Awaitable[T]) -> T:
        """`await call`, then the records it added, into the run's ordered list of calls."""
        before = len(records)
        try:
            return await call
        finally:
            self._calls.extend(records[before:])

    async def _base(self, key: str) -> Any:
        if key not in self._bases:
            self._bases[key] = await self._patiently(
                lambda: self._unrecorded.value(self._db, self._tenant_id, key)
            )
        return self._bases[key]

    async def _patiently(self, read: Callable[[], Awaitable[T]]) -> T:
        """`read()`, tried again while the database is unreachable, up to the run's time
        limit; the outage is noted, so that a run it made fail is not held against the
        script (`engine.runs.commit.Completion.run_again`)."""
        backoff = Backoff()
        deadline = time.monotonic() + self._patience_s
        while True:
            try:
                return await read()
            except Exception as exc:
                if not is_unavailable(exc) or time.monotonic() > deadline:
                    raise
                self.outage = self.outage or f"{type(exc).__name__}: {exc}"[:200]
                await backoff.wait()

    async def _show(self, key: str) -> Any:
        """The key's value before this run's writes, noted as seen by the script."""
        value = await self._base(key)
        if key not in self._shown:
            self._shown.add(key)
            self._checks.append(Saw(key, value))
        return value

    @staticmethod
    def _require_number(key: str, value: Any) -> None:
        if value is not None and value is not DELETED and not is_number(value):
            raise ValueError(
                f"kv.incr({key!r}): the key holds a {type(value).__name__}, not a number; "
                "set it to a number first"
            )


def storable(value: Any) -> Any:
    """A value as it may be stored: its text valid UTF-8 without NUL (the sandbox cleans it
    already; this boundary does not rely on that)."""
    return clean_json(check_value(value))
