"""An in-memory `HostApi` over a dict: for `cadenza run-script`, tests and benchmarks."""

from __future__ import annotations

import copy
from typing import Any


class MemoryHost:
    """One tenant's kv in a dict; `kv` shows what the script left behind; `secrets` are
    handed out as they are (nothing here is recorded, so nothing is redacted)."""

    def __init__(
        self, kv: dict[str, Any] | None = None, secrets: dict[str, str] | None = None
    ) -> None:
        self.kv: dict[str, Any] = copy.deepcopy(kv) if kv else {}
        self.secrets: dict[str, str] = dict(secrets or {})

    def begin(self) -> None:
        pass  # nothing here is timed: it makes no calls on the script's behalf

    async def secret_get(self, name: str) -> str | None:
        return self.secrets.get(name)

    async def http_request(
        self, method: str, url: str, headers: dict[str, str], body: str | None
    ) -> dict[str, Any]:
        raise ValueError("HTTP is made by the engine; a script run on its own has none")

    async def capability_call(self, name: str, args: Any) -> Any:
        raise ValueError("capabilities are called by the engine; a script run on its own has none")

    async def schedule(self, run_at: str, params: dict[str, Any] | None, key: str | None) -> str:
        raise ValueError("follow-ups are planned by the engine; a script run on its own has none")

    async def kv_get(self, key: str) -> Any | None:
        return copy.deepcopy(self.kv.get(key))

    async def kv_set(self, key: str, value: Any) -> None:
        self.kv[key] = copy.deepcopy(value)

    async def kv_delete(self, key: str) -> None:
        self.kv.pop(key, None)

    async def kv_keys(self, prefix: str) -> list[str]:
        return sorted(k for k in self.kv if k.startswith(prefix))

    async def kv_incr(self, key: str, by: int | float) -> None:
        value = self.kv.get(key)
        if value is not None and type(value) not in (int, float):
            raise ValueError(f"kv.incr({key!r}): the key holds a {type(value).__name__}")
        self.kv[key] = (value or 0) + by

    async def kv_set_if(self, key: str, expected: Any, value: Any) -> bool:
        if self.kv.get(key) != expected:
            return False
        self.kv[key] = copy.deepcopy(value)
        return True
