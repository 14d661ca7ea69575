"""The engine side of every host-API call, shared by all runtimes.

Whatever the runtime, a guest's `kv.get/set/delete/keys/incr/set_if`, `emit` and
`secrets.get`, `http.request`, `call` (a capability) and `schedule` arrive here
as an operation name and JSON-decoded arguments, and its log lines as text. This is where they
are checked (exact built-in types, sizes, counts) before the engine's `HostApi` ever sees
them, so a `str` subclass with a lying `__eq__` or a 10 MB key cannot reach the store. Every
string is cleaned (`sandbox.text`) on the way in. The frame a call arrives in has already been
sized and counted before it was parsed (`sandbox.conversation`), with the bounds defined here.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from sandbox.contract import Event, HostApi, Limits, OutcomeStatus
from sandbox.text import clean_json, clean_text

EVENT_TYPE_BYTES = 64
SECRET_NAME_CHARS = 64
HTTP_URL_CHARS = 2048
HTTP_HEADERS = 32
HTTP_HEADER_CHARS = 4096
CAPABILITY_NAME_CHARS = 130
#: Room in a call's frame for the operation's name and the JSON around its arguments.
_CALL_ENVELOPE_BYTES = 512


def call_frame_bytes(limits: Limits) -> int:
    """The largest host call frame a run may send: a key and an event type (JSON escapes
    included) and two values at their limit (`kv_set_if` carries the expected one too)."""
    names = 6 * (limits.key_bytes + EVENT_TYPE_BYTES)
    return names + 2 * limits.value_bytes + _CALL_ENVELOPE_BYTES


def log_bytes(line: str) -> int:
    """What one log line costs of the run's log budget (its UTF-8 bytes and a newline)."""
    return len(line.encode("utf-8", "replace")) + 1


class HostCallRefused(Exception):
    """A host call with bad arguments: the script gets this message as an error."""


class HostLimitReached(Exception):
    """A per-run budget ran out: the run ends with `status`."""

    def __init__(self, status: OutcomeStatus, message: str) -> None:
        self.status = status
        super().__init__(message)


def exact_json(value: Any, limit_bytes: int, what: str) -> Any:
    """Return `value` rebuilt from its JSON text: only exact dict/list/str/int/float/bool/None."""
    try:
        text = json.dumps(value, allow_nan=False, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError) as exc:
        raise HostCallRefused(f"{what} must be JSON-serialisable: {exc}") from None
    if len(text.encode()) > limit_bytes:
        raise HostCallRefused(f"{what} is larger than {limit_bytes} bytes as JSON")
    return json.loads(text)


class HostSession:
    """One run's view of the host API: validates, counts, collects events and logs."""

    def __init__(self, host: HostApi, limits: Limits) -> None:
        self._host = host
        self._limits = limits
        self.calls = 0
        self.events: list[Event] = []
        self.logs: list[str] = []
        self._log_bytes = 0

    def begin(self) -> None:
        """The worker has the job: the host's time for the run starts now."""
        self._host.begin()

    def check_call(self) -> None:
        """Raise HostLimitReached unless one more call fits the run's budget (asked before a
        call is even parsed)."""
        if self.calls >= self._limits.host_calls:
            raise HostLimitReached(
                OutcomeStatus.OUTPUT_LIMIT,
                f"made more than {self._limits.host_calls} host calls (kv/emit) in one run",
            )

    def check_log(self, size_bytes: int) -> None:
        """Raise HostLimitReached unless a log line of `size_bytes` fits the run's budget."""
        if self._log_bytes + size_bytes > self._limits.output_bytes:
            raise HostLimitReached(
                OutcomeStatus.OUTPUT_LIMIT,
                f"logged more than {self._limits.output_bytes} bytes in one run",
            )

    async def call(self, op: Any, args: Any) -> Any:
        """Run one operation; raise HostCallRefused (script's fault) or HostLimitReached."""
        if not isinstance(args, list):
            raise HostCallRefused("host call arguments must be a list")
        handler = _OPERATIONS.get(op) if type(op) is str else None
        if handler is None:
            raise HostCallRefused(f"unknown host call {op!r}")
        self.check_call()
        self.calls += 1
        args = clean_json(args)
        try:
            return await handler(self, *_arity(op, args, _ARITY[op]))
        except ValueError as exc:  # the host refused the request (see HostApi)
            raise HostCallRefused(str(exc)) from None

    def _key(self, key: Any, what: str = "key") -> str:
        if not isinstance(key, str):
            raise HostCallRefused(f"kv {what} must be a str, not {type(key).__name__}")
        exact = str.__str__(key)  # an exact str even when handed a subclass
        size = len(exact.encode("utf-8", "surrogatepass"))
        if size > self._limits.key_bytes or (what == "key" and size == 0):
            raise HostCallRefused(f"kv {what} must be 1..{self._limits.key_bytes} bytes")
        return exact

    async def _kv_get(self, key: Any) -> Any:
        return await self._host.kv_get(self._key(key))

    async def _kv_set(self, key: Any, value: Any) -> None:
        exact_key = self._key(key)
        await self._host.kv_set(exact_key, exact_json(value, self._limits.value_bytes, "value"))

    async def _kv_delete(self, key: Any) -> None:
        await self._host.kv_delete(self._key(key))

    async def _kv_incr(self, key: Any, by: Any) -> None:
        if type(by) not in (int, float):
            raise HostCallRefused(f"kv.incr amount must be a number, not {type(by).__name__}")
        await self._host.kv_incr(self._key(key), by)

    async def _kv_set_if(self, key: Any, expected: Any, value: Any) -> bool:
        exact_key = self._key(key)
        expected = exact_json(expected, self._limits.value_bytes, "expected value")
        value = exact_json(value, self._limits.value_bytes, "value")
        return bool(await self._host.kv_set_if(exact_key, expected, value))

    async def _kv_keys(self, prefix: Any) -> list[str]:
        keys = await self._host.kv_keys(self._key(prefix, "prefix"))
        return [str(k) for k in keys]

    async def _emit(self, type_: Any, payload: Any) -> None:
        if not isinstance(type_, str) or not 0 < len(type_.encode()) <= EVENT_TYPE_BYTES:
            raise HostCallRefused(f"event type must be a str of 1..{EVENT_TYPE_BYTES} bytes")
        if len(self.events) >= self._limits.events:
            raise HostLimitReached(
                OutcomeStatus.OUTPUT_LIMIT,
                f"emitted more than {self._limits.events} events in one run",
            )
        value = exact_json(payload, self._limits.value_bytes, "event payload")
        self.events.append(Event(type=str.__str__(type_), payload=value))

    async def _secret_get(self, name: Any) -> str | None:
        if type(name) is not str or not 0 < len(name) <= SECRET_NAME_CHARS:
            raise HostCallRefused(
                f"a secret name must be a str of 1..{SECRET_NAME_CHARS} characters"
            )
        return await self._host.secret_get(name)

    async def _http_request(self, method: Any, url: Any, headers: Any, body: Any) -> Any:
        if type(method) is not str or type(url) is not str or len(url) > HTTP_URL_CHARS:
            raise HostCallRefused(
                f"http.request takes a method and a URL of at most {HTTP_URL_CHARS} characters"
            )
        headers = {} if headers is None else headers
        if (
            not isinstance(headers, dict)
            or len(headers) > HTTP_HEADERS
            or not all(
                type(v) is str and len(k) + len(v) <= HTTP_HEADER_CHARS for k, v in headers.items()
            )
        ):
            raise HostCallRefused(
                f"http.request headers must be a dict of at most {HTTP_HEADERS} str: str "
                f"entries of {HTTP_HEADER_CHARS} characters"
            )
        if body is not None and type(body) is not str:
            raise HostCallRefused("http.request body must be a str or None (json.dumps a value)")
        return await self._host.http_request(method, url, headers, body)

    async def _capability_call(self, name: Any, args: Any) -> Any:
        if type(name) is not str or not 0 < len(name) <= CAPABILITY_NAME_CHARS:
            raise HostCallRefused(
                f"call: a capability name must be a str of 1..{CAPABILITY_NAME_CHARS} characters"
            )
        args = exact_json(args, self._limits.value_bytes, "capability arguments")
        return await self._host.capability_call(name, args)

    async def _schedule(self, run_at: Any, params: Any, key: Any) -> str:
        if type(run_at) is not str or len(run_at) > 64:
            raise HostCallRefused("schedule: run_at must be ISO 8601 text with an offset")
        if key is not None and type(key) is not str:
            raise HostCallRefused("schedule: key must be a str or None")
        params = exact_json(params, self._limits.value_bytes, "schedule params")
        return await self._host.schedule(run_at, params, key)

    async def _refused(self, reason: Any) -> None:
        """A call the worker refused itself (a bad pointer, text that is not UTF-8): it
        counts as a call, and its reason is logged."""
        self.log(f"host call refused: {reason}")

    def log(self, line: str) -> None:
        """Append one log line, capped as written: past the budget the run ends."""
        line = clean_text(line)
        self.check_log(log_bytes(line))
        self._log_bytes += log_bytes(line)
        self.logs.append(line)


def _arity(op: str, args: list[Any], count: int) -> list[Any]:
    if len(args) != count:
        raise HostCallRefused(f"{op} takes {count} argument(s), got {len(args)}")
    return args


_OPERATIONS: dict[str, Callable[..., Awaitable[Any]]] = {
    "kv_get": HostSession._kv_get,
    "kv_set": HostSession._kv_set,
    "kv_delete": HostSession._kv_delete,
    "kv_keys": HostSession._kv_keys,
    "kv_incr": HostSession._kv_incr,
    "kv_set_if": HostSession._kv_set_if,
    "emit": HostSession._emit,
    "secret_get": HostSession._secret_get,
    "http_request": HostSession._http_request,
    "capability_call": HostSession._capability_call,
    "schedule": HostSession._schedule,
    "refused": HostSession._refused,
}
_ARITY = {
    "kv_get": 1,
    "kv_set": 2,
    "kv_delete": 1,
    "kv_keys": 1,
    "kv_incr": 2,
    "kv_set_if": 3,
    "emit": 2,
    "secret_get": 1,
    "http_request": 4,
    "capability_call": 2,
    "schedule": 3,
    "refused": 1,
}
