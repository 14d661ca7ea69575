"""The `cadenza` import module: the only thing a tenant's WebAssembly module may import.

Strings and values cross as (pointer, length) pairs into the guest's exported `memory`:
UTF-8 for keys and text, JSON for values. Functions that return data write it to a guest
buffer `(out_ptr, out_cap)` and return its length; if the length is larger than `out_cap`
nothing was written (call again with a bigger buffer). Negative returns: -1 not found,
-2 refused (bad key, bad JSON, too large; the reason is added to the run's logs, and the
call counts against the run's host calls, so refusals can neither flood the logs nor spin
for free). These functions run in the worker; every call that needs the tenant's data goes
on to the engine (`GuestRun.host_call`). See docs/scripts.md for the full table and a WAT
example.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import wasmtime

from sandbox.contract import OutcomeStatus
from sandbox.hostcalls import (
    CAPABILITY_NAME_CHARS,
    HTTP_URL_CHARS,
    SECRET_NAME_CHARS,
    HostCallRefused,
)
from sandbox.wasm.guest import GuestRun, GuestStopped
from sandbox.worker import Refused

MODULE = "cadenza"
NOT_FOUND, REFUSED = -1, -2
_I32 = wasmtime.ValType.i32()


def _read(caller: wasmtime.Caller, ptr: int, length: int, limit_bytes: int) -> bytes:
    if ptr < 0 or length < 0 or length > limit_bytes:
        raise HostCallRefused(f"a buffer of {length} bytes is outside 0..{limit_bytes}")
    memory = caller.get("memory")
    if not isinstance(memory, wasmtime.Memory):
        raise GuestRun.current().end(
            OutcomeStatus.ERROR, "the module must export its memory as 'memory'"
        )
    try:
        return bytes(memory.read(caller, ptr, ptr + length))
    except (IndexError, ValueError, wasmtime.WasmtimeError):
        raise HostCallRefused("a buffer lies outside the guest's memory") from None


def _text(caller: wasmtime.Caller, ptr: int, length: int, limit_bytes: int) -> str:
    try:
        return _read(caller, ptr, length, limit_bytes).decode("utf-8")
    except UnicodeDecodeError:
        raise HostCallRefused("text must be UTF-8") from None


def _json(caller: wasmtime.Caller, ptr: int, length: int, limit_bytes: int) -> Any:
    try:
        return json.loads(_read(caller, ptr, length, limit_bytes))
    except (ValueError, RecursionError) as exc:
        raise HostCallRefused(f"value must be JSON: {exc}") from None


def _give(caller: wasmtime.Caller, value: Any, out_ptr: int, out_cap: int) -> int:
    data = json.dumps(value, separators=(",", ":")).encode()
    if len(data) <= out_cap:
        memory = caller.get("memory")
        if not isinstance(memory, wasmtime.Memory) or out_ptr < 0:
            raise HostCallRefused("the output buffer is invalid")
        try:
            memory.write(caller, data, out_ptr)
        except (IndexError, ValueError, wasmtime.WasmtimeError):
            raise HostCallRefused("the output buffer lies outside the guest's memory") from None
    return len(data)


def _refusable(func: Callable[..., int]) -> Callable[..., int]:
    """Turn a refused call into REFUSED (noted in the logs, counted as a call); budget
    exhaustion still traps."""

    def call(caller: wasmtime.Caller, *args: int) -> int:
        run = GuestRun.current()
        try:
            return func(caller, run, *args)
        except HostCallRefused as exc:  # refused here: the engine counts and logs it
            run.refuse(str(exc))
        except Refused as exc:  # refused by the engine, which counted it
            run.log(f"host call refused: {exc}")
        return REFUSED

    return call


def kv_get(caller: wasmtime.Caller, run: GuestRun, kp: int, kl: int, op: int, oc: int) -> int:
    value = run.host_call("kv_get", [_text(caller, kp, kl, run.limits.key_bytes)])
    return NOT_FOUND if value is None else _give(caller, value, op, oc)


def kv_set(caller: wasmtime.Caller, run: GuestRun, kp: int, kl: int, vp: int, vl: int) -> int:
    key = _text(caller, kp, kl, run.limits.key_bytes)
    run.host_call("kv_set", [key, _json(caller, vp, vl, run.limits.value_bytes)])
    return 0


def kv_delete(caller: wasmtime.Caller, run: GuestRun, kp: int, kl: int) -> int:
    run.host_call("kv_delete", [_text(caller, kp, kl, run.limits.key_bytes)])
    return 0


def kv_keys(caller: wasmtime.Caller, run: GuestRun, pp: int, pl: int, op: int, oc: int) -> int:
    keys = run.host_call("kv_keys", [_text(caller, pp, pl, run.limits.key_bytes)])
    return _give(caller, keys, op, oc)


def kv_incr(caller: wasmtime.Caller, run: GuestRun, kp: int, kl: int, np: int, nl: int) -> int:
    key = _text(caller, kp, kl, run.limits.key_bytes)
    run.host_call("kv_incr", [key, _json(caller, np, nl, run.limits.value_bytes)])
    return 0


def kv_set_if(
    caller: wasmtime.Caller, run: GuestRun, kp: int, kl: int, ep: int, el: int, vp: int, vl: int
) -> int:
    key = _text(caller, kp, kl, run.limits.key_bytes)
    expected = _json(caller, ep, el, run.limits.value_bytes)
    value = _json(caller, vp, vl, run.limits.value_bytes)
    return 1 if run.host_call("kv_set_if", [key, expected, value]) else 0


def secret_get(caller: wasmtime.Caller, run: GuestRun, np: int, nl: int, op: int, oc: int) -> int:
    value = run.host_call("secret_get", [_text(caller, np, nl, SECRET_NAME_CHARS * 4)])
    return NOT_FOUND if value is None else _give(caller, value, op, oc)


def http_request(caller: wasmtime.Caller, run: GuestRun, rp: int, rl: int, op: int, oc: int) -> int:
    request = _json(caller, rp, rl, run.limits.value_bytes + HTTP_URL_CHARS + 64 * 1024)
    if not isinstance(request, dict):
        raise HostCallRefused('an HTTP request is a JSON object {"method", "url", ...}')
    fields = [request.get(name) for name in ("method", "url", "headers", "body")]
    return _give(caller, run.host_call("http_request", fields), op, oc)


def capability_call(
    caller: wasmtime.Caller, run: GuestRun, rp: int, rl: int, op: int, oc: int
) -> int:
    request = _json(caller, rp, rl, run.limits.value_bytes + CAPABILITY_NAME_CHARS + 64)
    if not isinstance(request, dict):
        raise HostCallRefused('a capability call is a JSON object {"name", "args"}')
    answer = run.host_call("capability_call", [request.get("name"), request.get("args")])
    return _give(caller, answer, op, oc)


def schedule(caller: wasmtime.Caller, run: GuestRun, rp: int, rl: int) -> int:
    request = _json(caller, rp, rl, run.limits.value_bytes + 1024)
    if not isinstance(request, dict):
        raise HostCallRefused('a follow-up is a JSON object {"run_at", "params", "key"}')
    run.host_call("schedule", [request.get(name) for name in ("run_at", "params", "key")])
    return 0


def emit(caller: wasmtime.Caller, run: GuestRun, tp: int, tl: int, pp: int, pl: int) -> int:
    event_type = _text(caller, tp, tl, run.limits.key_bytes)
    run.host_call("emit", [event_type, _json(caller, pp, pl, run.limits.value_bytes)])
    return 0


def log(caller: wasmtime.Caller, run: GuestRun, ptr: int, length: int) -> int:
    if length > run.limits.output_bytes:
        raise run.end(OutcomeStatus.OUTPUT_LIMIT, "logged more than the output limit")
    run.log(_text(caller, ptr, length, run.limits.output_bytes))
    return 0


def print_(caller: wasmtime.Caller, run: GuestRun, ptr: int, length: int) -> int:
    room = run.limits.output_bytes + 1  # one byte more than fits ends the run
    data = _read(caller, ptr, min(length, room), room)
    run.write_stdout(data.decode("utf-8", "replace"))
    return 0


def context(caller: wasmtime.Caller, run: GuestRun, op: int, oc: int) -> int:
    return _give(caller, run.job.context, op, oc)


def result(caller: wasmtime.Caller, run: GuestRun, ptr: int, length: int) -> int:
    if length > run.limits.result_bytes:
        message = f"the result is {length} bytes of JSON (limit {run.limits.result_bytes} bytes)"
        raise run.end(OutcomeStatus.OUTPUT_LIMIT, message)
    try:
        run.result_json = _read(caller, ptr, length, run.limits.result_bytes).decode("utf-8")
    except UnicodeDecodeError:
        raise HostCallRefused("the result must be UTF-8 JSON") from None
    return 0


#: name -> (function, number of i32 parameters); every function returns one i32.
FUNCTIONS: dict[str, tuple[Callable[..., int], int]] = {
    "kv_get": (kv_get, 4),
    "kv_set": (kv_set, 4),
    "kv_delete": (kv_delete, 2),
    "kv_keys": (kv_keys, 4),
    "kv_incr": (kv_incr, 4),
    "kv_set_if": (kv_set_if, 6),
    "secret_get": (secret_get, 4),
    "http_request": (http_request, 4),
    "call": (capability_call, 4),
    "schedule": (schedule, 2),
    "emit": (emit, 4),
    "log": (log, 2),
    "print": (print_, 2),
    "context": (context, 2),
    "result": (result, 2),
}


def define(linker: wasmtime.Linker) -> None:
    """Put the `cadenza` functions into a (shared, store-independent) linker."""
    for name, (func, arity) in FUNCTIONS.items():
        ty = wasmtime.FuncType([_I32] * arity, [_I32])
        linker.define_func(MODULE, name, ty, _refusable(func), access_caller=True)


def interface_errors(module: wasmtime.Module) -> list[str]:
    """Why the module may not run here: foreign imports, wrong signatures, no `main`."""
    errors = []
    for item in module.imports:
        expected = FUNCTIONS.get(item.name or "") if item.module == MODULE else None
        ty = item.type
        if expected is None:
            errors.append(
                f"imports {item.module}.{item.name}; only the 'cadenza' functions are allowed"
            )
        elif not (
            isinstance(ty, wasmtime.FuncType)
            and _is_i32s(ty.params, expected[1])
            and _is_i32s(ty.results, 1)
        ):
            errors.append(f"imports cadenza.{item.name} with the wrong signature")
    exports = {item.name: item.type for item in module.exports}
    main = exports.get("main")
    if not isinstance(main, wasmtime.FuncType) or main.params or len(main.results) > 1:
        errors.append(
            "must export a function 'main' taking no parameters (returning nothing or one i32)"
        )
    return errors


def _is_i32s(types: list[wasmtime.ValType], count: int) -> bool:
    return len(types) == count and all(t == _I32 for t in types)


__all__ = ["FUNCTIONS", "GuestStopped", "define", "interface_errors"]
