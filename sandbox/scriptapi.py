"""The objects a python script sees: `ctx` and the captured `print`.

They live in the worker. Each exposes only its documented methods (no public attributes
beyond them; underscore names are unreachable from RestrictedPython code) and sends every
argument to the engine as JSON, so only exact built-in types ever leave the worker.
"""

from __future__ import annotations

import json
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


class Rule:
    """`ctx.rule`: the rule being run (`id` and `name`, either may be None)."""

    __slots__ = ("id", "name")

    def __init__(self, rule: dict[str, Any]) -> None:
        self.id = rule.get("id")
        self.name = rule.get("name")


class Ctx:
    """`ctx`: what `main(ctx)` receives."""

    __slots__ = ("_call", "attempt", "kv", "occurrence_id", "params", "rule", "scheduled_at")

    def __init__(self, context: dict[str, Any], call: Call) -> None:
        self._call = call
        self.scheduled_at: str = context["scheduled_at"]
        self.attempt: int = context["attempt"]
        self.rule = Rule(context["rule"])
        self.params: dict[str, Any] = context["params"]
        self.occurrence_id: str = context["occurrence_id"]
        self.kv = Kv(call)

    def emit(self, type: str, payload: Any = None) -> None:
        self._call("emit", [type, payload])

    def log(self, *values: Any) -> None:
        self._call("log", [" ".join(v if isinstance(v, str) else repr(v) for v in values)])


def to_json_args(args: list[Any]) -> list[Any]:
    """Rebuild arguments from their JSON text (exact types only); TypeError names the problem."""
    try:
        return json.loads(json.dumps(args, allow_nan=False))
    except (TypeError, ValueError, RecursionError) as exc:
        raise TypeError(f"host call arguments must be JSON values: {exc}") from None


class Output:
    """Captured print output, capped; `on_overflow` ends the run the moment the cap is hit.
    Every byte kept is also handed to `mirror` (the worker's output window, which the engine
    reads if the run is stopped before it can report)."""

    def __init__(
        self,
        limit_bytes: int,
        on_overflow: Callable[[], None],
        mirror: Callable[[bytes], None],
    ) -> None:
        self.parts: list[str] = []
        self.size_bytes = 0
        self._limit_bytes = limit_bytes
        self._on_overflow = on_overflow
        self._mirror = mirror

    def write(self, text: str) -> None:
        data = text.encode("utf-8", "replace")
        if self.size_bytes + len(data) > self._limit_bytes:
            kept = data[: self._limit_bytes - self.size_bytes]
            self._mirror(kept)
            self.parts.append(kept.decode("utf-8", "ignore"))
            self.size_bytes = self._limit_bytes
            self._on_overflow()
        self._mirror(data)
        self.parts.append(text)
        self.size_bytes += len(data)

    def text(self) -> str:
        return "".join(self.parts)

    def printer(self) -> Callable[..., Any]:
        """The `_print_` factory RestrictedPython calls at the top of every function."""
        output = self

        class Printer:
            def __init__(self, _getattr_: Any = None) -> None:
                pass

            def __call__(self) -> str:
                return output.text()

            def _call_print(
                self, *objects: Any, sep: str | None = " ", end: str | None = "\n"
            ) -> None:
                sep = " " if sep is None else sep
                end = "\n" if end is None else end
                if not isinstance(sep, str) or not isinstance(end, str):
                    raise TypeError("print(): sep and end must be str")
                output.write(sep.join(str(o) for o in objects) + end)

        return Printer
