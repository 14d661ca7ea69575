"""What a python script sees: `ctx`, `ctx.kv`, `ctx.secrets`, `ctx.http`, `ctx.call`, `ctx.rule`,
`HostError`.

They live in the worker. Each exposes only its documented methods (no public attributes
beyond them; underscore names are unreachable from RestrictedPython code) and sends every
argument to the engine as JSON (`sandbox.worker.Worker.call`), so only exact built-in types
ever leave the worker.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Call = Callable[[str, list[Any]], Any]


class HostError(Exception):
    """The engine refused a host call (bad key, value too large, ...)."""


class Kv:
    """`ctx.kv`: this tenant's key-value data."""

    __slots__ = ("_call",)

    def __init__(self, call: Call) -> None:
        self._call = call

    def get(self, key: str, default: Any = None) -> Any:
        value = self._call("kv_get", [key])
        return default if value is None else value

    def set(self, key: str, value: Any) -> None:
        self._call("kv_set", [key, value])

    def delete(self, key: str) -> None:
        self._call("kv_delete", [key])

    def keys(self, prefix: str = "") -> list[str]:
        return list(self._call("kv_keys", [prefix]))

    def incr(self, key: str, by: int | float = 1) -> None:
        self._call("kv_incr", [key, by])

    def set_if(self, key: str, expected: Any, value: Any) -> bool:
        return bool(self._call("kv_set_if", [key, expected, value]))


class Secrets:
    """`ctx.secrets`: the tenant's secrets, by name (set through the API, never shown there)."""

    __slots__ = ("_call",)

    def __init__(self, call: Call) -> None:
        self._call = call

    def get(self, name: str, default: str | None = None) -> str | None:
        value = self._call("secret_get", [name])
        return default if value is None else str(value)


class Http:
    """`ctx.http`: HTTP requests, made by the engine to the origins the tenant allows."""

    __slots__ = ("_call",)

    def __init__(self, call: Call) -> None:
        self._call = call

    def request(
        self,
        method: str,
        url: str,
        headers: dict[str, str] | None = None,
        body: str | None = None,
    ) -> dict[str, Any]:
        """`{"status": int, "headers": {name: value}, "body": str}`; HostError if refused."""
        return dict(self._call("http_request", [method, url, headers, body]))


class Rule:
    """`ctx.rule`: the rule being run (`id` and `name`, either may be None)."""

    __slots__ = ("id", "name")

    def __init__(self, rule: dict[str, Any]) -> None:
        self.id = rule.get("id")
        self.name = rule.get("name")


class Ctx:
    """`ctx`: what `main(ctx)` receives."""

    __slots__ = (
        "_call",
        "attempt",
        "http",
        "kv",
        "occurrence_id",
        "params",
        "rule",
        "scheduled_at",
        "secrets",
    )

    def __init__(self, context: dict[str, Any], call: Call) -> None:
        self._call = call
        self.scheduled_at: str = context["scheduled_at"]
        self.attempt: int = context["attempt"]
        self.rule = Rule(context["rule"])
        self.params: dict[str, Any] = context["params"]
        self.occurrence_id: str = context["occurrence_id"]
        self.kv = Kv(call)
        self.secrets = Secrets(call)
        self.http = Http(call)

    def schedule(self, run_at: Any, params: Any = None, key: str | None = None) -> str:
        """Plan a one-off of this rule at `run_at` (ISO 8601 text with an offset, or an aware
        datetime), committed with the run's effects; returns its key."""
        text = run_at.isoformat() if hasattr(run_at, "isoformat") else run_at
        return str(self._call("schedule", [text, params, key]))

    def call(self, name: str, args: Any = None) -> Any:
        """Call capability `name` of the embedding product (granted to the tenant by the
        operator) with JSON `args`; its JSON answer, or HostError if refused or failed."""
        return self._call("capability_call", [name, args])

    def secret_ref(self, name: str) -> str:
        """A header value the engine replaces with secret `name`, unseen by the script."""
        return "{{secret:" + str(name) + "}}"

    def emit(self, type: str, payload: Any = None) -> None:
        self._call("emit", [type, payload])

    def log(self, *values: Any) -> None:
        self._call("log", [" ".join(v if isinstance(v, str) else repr(v) for v in values)])
