"""One MicroPython instance in a worker: the host calls it makes, and how each run ended.

An instance serves runs one after another, each in up to four phases. While it waits for a job
(trusted code only: the interpreter and the prelude's bytecode, booting or coming back from
the previous run) it may only fetch its script (`__script`), which is when the job starts:
fuel, deadline and a fresh token (see `micropython.prelude`). Before that call is answered
the instance is put back as it was at its first one (`micropython.snapshot`), or, if it
compiled the job's script before, as it was right after that compilation: a script is compiled
once per instance, not once per run. While the prelude compiles (no tenant code runs then)
it may only fetch a long source (`__again`), report a failure (`__end`) or ask for the script
again, the call at which the instance is snapshotted with the script compiled (the snapshot
is taken in that call's first step, and kept once the call turns out to be `__script`). While
the script runs it may print, read its context and use the host API. Its first genuine `__end`
(carrying the token) ends the run at once: the report is sent, and every host call but the
prelude's next `__script` traps. How a run without a report ended is decided here, from what
the host saw; such a run (a trap) ends the instance too.
"""

from __future__ import annotations

import contextlib
import json
import secrets
from collections.abc import Iterator, Mapping
from enum import Enum
from typing import Any

import wasmtime

from sandbox.contract import OutcomeStatus
from sandbox.hostcalls import HostCallRefused
from sandbox.job import CodeForm, Job, Mode
from sandbox.micropython.bytecode import Rom
from sandbox.micropython.memory import GuestMemory
from sandbox.micropython.prelude import TOKEN_CHARS
from sandbox.micropython.reports import classify, ending_report, unreported
from sandbox.micropython.snapshot import Snapshot, Snapshots
from sandbox.wasm.engine import DeadlineTimer, fuel_for
from sandbox.wasm.guest import GuestRun, GuestStopped, detach, fuel_used
from sandbox.worker import Refused, Worker

#: The largest answer to one host call. The guest allocates (and zeroes, ~4 fuel a byte) the
#: room for each answer from its heap, which this build fixes at 1 MiB: keep it small (a 64 KiB
#: value fits), and scripts smaller still.
HOST_RESULT_BYTES = 96 * 1024
#: The room offered first: a larger answer is held back and the prelude fetches it with
#: `__again`, offered exactly its size (offering the whole room to every call slowed every
#: run: docs/performance.md).
FIRST_ROOM_BYTES = 1024
_AGAIN = b"1"
#: The prelude's names for the kv operations: names MicroPython knows already cost nothing
#: to load, while each new one costs fuel on every boot (docs/performance.md).
_KV_OPS = {
    "get": "kv_get",
    "set": "kv_set",
    "delete": "kv_delete",
    "keys": "kv_keys",
    "incr": "kv_incr",
    "set_if": "kv_set_if",
    "secret": "secret_get",
    "http": "http_request",
    "call": "capability_call",
}
_encode = json.JSONEncoder(separators=(",", ":")).encode


class Phase(Enum):
    #: Waiting for a job: booting, or back from the previous run.
    WAITING = 1
    #: The prelude compiles the script it was handed; no tenant code runs.
    COMPILING = 2
    SCRIPT = 3
    ENDED = 4


class Instance:
    """One interpreter instance, from its boot to the trap that ends it; one run at a time.

    `fuel` is what the prelude may use between runs (it only asks for the next script)."""

    current: Instance | None = None

    def __init__(
        self,
        worker: Worker,
        timer: DeadlineTimer,
        rom: Rom,
        pending: Job | None,
        sources: dict[str, bytes],
    ) -> None:
        self.worker, self._timer, self._rom, self._pending = worker, timer, rom, pending
        #: The scripts this worker was sent, kept for its next runs (the engine sends each once).
        self._sources = sources
        self.memory: wasmtime.Memory | None = None
        self._store: wasmtime.Store | None = None
        self._engine: wasmtime.Engine | None = None
        self._snapshots: Snapshots | None = None
        self._trap: tuple[Exception, bool] | None = None
        self._between_runs_fuel = 0
        self._new_run()

    def _new_run(self) -> None:
        self.phase = Phase.WAITING
        self.guest: GuestRun | None = None
        self._token = secrets.token_hex(TOKEN_CHARS // 2)
        self._held: bytes | None = None
        self._fuel = 0
        self._ending: tuple[str, str] | None = None
        self._is_compiled = False

    @contextlib.contextmanager
    def started(
        self, store: wasmtime.Store, engine: wasmtime.Engine, between_runs_fuel: int
    ) -> Iterator[Instance]:
        self._store, self._engine = store, engine
        self._between_runs_fuel = between_runs_fuel
        Instance.current = self
        try:
            yield self
        finally:
            Instance.current = None

    def attach(self, exports: Mapping[str, object]) -> None:
        """Find the instance's memory, and write the prelude's image into pages added to it."""
        found = exports.get("memory")
        assert isinstance(found, wasmtime.Memory) and self._store is not None
        self.memory = found
        self._rom.install(found, self._store)

    def result_room(self) -> int:
        """How much room the guest allocates for the next host call's answer. The first step
        of every host call: where the instance is snapshotted (its first `__script`) and put
        back after a run (the prelude's next `__script`, see `micropython.snapshot`)."""
        if self.phase is Phase.ENDED:
            self._rewind()
        elif self._snapshots is None and self.phase is Phase.WAITING:
            assert self.memory is not None and self._store is not None
            self._snapshots = Snapshots(self.memory, self._store)
        elif self.phase is Phase.COMPILING and self._held is None:
            assert self._snapshots is not None
            self._snapshots.take_candidate()  # kept if this call is the prelude's `__script`
        return FIRST_ROOM_BYTES if self._held is None else len(self._held)

    def _rewind(self) -> None:
        """Back to a snapshot for the next job: the one with its script compiled, if the
        instance has it, else the booted state. The snapshot of the script that just ran is
        written back before the job arrives (the next run is most often of the same script),
        so only another script's run waits for a write."""
        snapshots = self._snapshots
        assert snapshots is not None and self.guest is not None
        written = self._restore(snapshots.for_script(self.guest.job.key))
        job = self._pending = self.worker.next_job()
        wanted = snapshots.for_script(job.key)
        if wanted is not written:
            self._restore(wanted)
        self._new_run()
        self._is_compiled = wanted is not snapshots.booted

    def _restore(self, snapshot: Snapshot) -> Snapshot:
        assert self._store is not None
        if not snapshot.restore(self._store):
            self.worker.exit()  # its memory grew: the engine gives the next run a new worker
        return snapshot

    def handle(self, name: str, memory: GuestMemory, address: int, size_bytes: int) -> bytes:
        """The answer to one `host.call(name, payload)`; the payload is at `address`."""
        if self.phase is Phase.ENDED:
            raise GuestStopped("the run has ended")
        if self.phase is Phase.WAITING:
            return self._wait(name)
        assert self.guest is not None
        if self.phase is Phase.COMPILING and name not in ("__end", "__again"):
            return self._after_compile(name, self.guest)
        payload = memory.read(address, size_bytes)
        if name == "__end":
            return self._end(payload)
        return self._respond(self.guest, name, payload)

    def _after_compile(self, name: str, guest: GuestRun) -> bytes:
        """The prelude compiled the script and asks for it again: the snapshot taken in this
        call's first step is kept for the script's next runs, and the run goes on."""
        if name != "__script":
            raise GuestStopped(f"unexpected host call {name!r} while compiling")
        assert self._snapshots is not None
        if guest.job.mode is Mode.RUN:
            self._snapshots.keep_candidate(guest.job.key)
        else:
            self._snapshots.drop_candidate()  # a check: its worker serves no other run
        self.phase = Phase.SCRIPT
        return self._start_answer(guest.job)

    def _wait(self, name: str) -> bytes:
        if name == "__script":
            return self._begin()
        raise GuestStopped(f"unexpected host call {name!r} while waiting for a job")

    def _begin(self) -> bytes:
        """The job starts: its fuel, its deadline, and the prelude's token, mode and script."""
        job = self._pending or self.worker.next_job()
        self._pending = None
        assert self._store is not None and self._engine is not None
        self.guest = GuestRun(job, self.worker, self._store)
        self._fuel = fuel_for(job.limits)
        self._store.set_fuel(self._fuel)
        self._store.set_epoch_deadline(1)
        self._timer.arm(self._engine, self.guest.started_s + job.limits.timeout_s)
        if self._is_compiled:
            self.phase = Phase.SCRIPT
            return self._start_answer(job)
        self.phase = Phase.COMPILING
        return self._hold((self._token + "c").encode() + self._source(job, self.guest))

    def _start_answer(self, job: Job) -> bytes:
        """The token and the mode: the prelude runs the script it compiled."""
        return (self._token + ("v" if job.mode is Mode.CHECK else "r")).encode()

    def _source(self, job: Job, guest: GuestRun) -> bytes:
        source = self._sources.get(job.key) if job.form is CodeForm.HELD else self.worker.blob
        if source is None:
            raise guest.end(OutcomeStatus.ERROR, f"the worker lost script {job.key}; run it again")
        if job.mode is Mode.RUN:
            self._sources[job.key] = source
        return source

    def _end(self, payload: bytes) -> bytes:
        """The prelude's report: the run ends here, and its report is sent (the worker exits
        if it may not serve another run); the instance then only asks for the next script."""
        text = _decode(payload)
        if not text.startswith(self._token) or len(text) <= TOKEN_CHARS:
            return _encode("only the prelude may end a run").encode()
        self._timer.disarm()
        if self._snapshots is not None:
            self._snapshots.drop_candidate()  # a compile failure: nothing to keep
        self._ending = (text[TOKEN_CHARS], text[TOKEN_CHARS + 1 :])
        self.phase = Phase.ENDED
        self.worker.finish(self.report())
        assert self._store is not None
        self._store.set_fuel(self._between_runs_fuel)
        return b""

    def _respond(self, guest: GuestRun, name: str, payload: bytes) -> bytes:
        """`[value]`, or the refusal's message as a JSON string; one too large for the room
        offered (but not for HOST_RESULT_BYTES) is held back, answered with `1`."""
        held, self._held = self._held, None
        if name == "__again" and held is not None:
            return held
        try:
            response: Any = [self._answer(guest, name, _decode(payload))]
        except (HostCallRefused, Refused) as exc:
            response = str(exc)
        return self._hold(_encode(response).encode())

    def _hold(self, data: bytes) -> bytes:
        if FIRST_ROOM_BYTES < len(data) <= HOST_RESULT_BYTES:
            self._held = data
            return _AGAIN
        return data

    def _answer(self, guest: GuestRun, name: str, text: str) -> Any:
        if name == "__context":
            return guest.job.context
        try:
            args = json.loads(text)
        except (ValueError, RecursionError):
            raise HostCallRefused("host call arguments must be JSON") from None
        if not isinstance(args, list):
            raise HostCallRefused("host call arguments must be a JSON array")
        if name == "__print" and args and isinstance(args[0], str):
            return guest.write_stdout(args[0])
        if name == "log" and args and isinstance(args[0], str):
            return guest.log(args[0])
        if name.startswith("__"):
            raise HostCallRefused(f"unknown host call {name!r}")
        return guest.host_call(_KV_OPS.get(name, name), args)

    def trapped(self, exc: Exception) -> None:
        """A trap (or a host function's exception) ended the instance; whether the script had
        compiled matters only if it had not reported."""
        self._trap = (detach(exc), self._ending is None and self._compiled_mark())

    def _compiled_mark(self) -> bool:
        """Whether the prelude marked the script compiled (read only when a trap ends the run:
        a host call fewer per run)."""
        memory, store = self.memory, self._store
        return memory is not None and store is not None and self._rom.is_marked(memory, store)

    def final_report(self) -> dict[str, Any] | None:
        """After a trap: the report of the run it ended, None if that run had reported."""
        return None if self.phase is Phase.ENDED else self.report()

    def report(self) -> dict[str, Any]:
        """How the run ended, with the fuel it used and the size of its memory; after a trap,
        the instance is let go of."""
        guest = self.guest
        if guest is None:
            self.worker.exit()  # the interpreter did not boot: the engine sees a crash
        assert self._store is not None
        memory_bytes = self.memory.data_len(self._store) if self.memory else 0
        if guest.stop is not None:
            status, error = guest.stop
            report: dict[str, Any] = {"status": str(status), "error": error}
        elif self._ending is not None:
            report = ending_report(*self._ending, guest.limits)
        elif self._trap is not None:
            status, error = classify(guest, self._trap[0], memory_bytes, self._trap[1])
            report = {"status": str(status), "error": error}
        else:
            report = unreported()
        trap = self._trap[0] if self._trap else None
        fuel = fuel_used(self._store, self._fuel, trap)
        report.update(fuel=fuel, peak_memory_bytes=memory_bytes)
        guest.close()
        if trap is not None:
            self._store = self.memory = self._trap = None
        return report


def _decode(payload: bytes) -> str:
    """A payload as text: MicroPython encodes a lone surrogate as its three UTF-8-like bytes,
    which pass as that surrogate (cleaned later); anything else invalid is replaced."""
    try:
        return payload.decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:
        return payload.decode("utf-8", "replace")
