"""The interpreter's memory as it was when it first asked for a script, put back before
every later run.

A booted interpreter waits for its script inside one host call made from one frame of the
prelude (`micropython.prelude`, `main`). Every run after the first reaches that same call, at
the same depth of the same frames, once the previous run has reported: putting the whole
linear memory back as it was at the first such call (heap, C stack, module and interpreter
state) leaves nothing of that run anywhere the next one can reach. It is taken and put back
in the call's first step (`host_result_cap`), before the guest allocates the room for its
answer, so that allocation lands where it did the first time. The wasm globals (the C stack
pointer) are equal at that point by construction; memory that grew since cannot be put back
(its new pages would keep what the run left there), so that instance is not reused.

An instance is also snapshotted at the same call right after the prelude compiled a script
(decision 101): a later run of that script is put back there and skips compiling it.
"""

from __future__ import annotations

import wasmtime


class Snapshot:
    """One instance's linear memory, copied at its first `__script` call."""

    def __init__(self, memory: wasmtime.Memory, store: wasmtime.Storelike) -> None:
        self._memory = memory
        #: A bytearray, not bytes: `Memory.write` copies anything else into one first.
        self._image = memory.read(store, 0, memory.data_len(store))

    @property
    def size_bytes(self) -> int:
        return len(self._image)

    def restore(self, store: wasmtime.Storelike) -> bool:
        """Put the copy back; False (nothing done) if the memory has grown since."""
        if self._memory.data_len(store) != len(self._image):
            return False
        self._memory.write(store, self._image, 0)
        return True


#: Snapshots with a script compiled, kept per instance (1.3 MiB each; the oldest goes first):
#: a warm worker serves one tenant, whose scripts are few.
COMPILED_SNAPSHOTS = 4


class Snapshots:
    """An instance's snapshots: the booted state, and the state right after it compiled
    each of its last few scripts, by script key."""

    def __init__(self, memory: wasmtime.Memory, store: wasmtime.Storelike) -> None:
        self._memory, self._store = memory, store
        self.booted = Snapshot(memory, store)
        self._compiled: dict[str, Snapshot] = {}
        self._candidate: Snapshot | None = None

    def for_script(self, key: str) -> Snapshot:
        """Where a run of script `key` starts: compiled, if the instance has compiled it."""
        return self._compiled.get(key, self.booted)

    def take_candidate(self) -> None:
        """Copy the memory at a call the prelude may make right after compiling a script."""
        self._candidate = Snapshot(self._memory, self._store)

    def keep_candidate(self, key: str) -> None:
        """The call was that one: keep the copy for script `key` (unless memory grew)."""
        candidate, self._candidate = self._candidate, None
        if candidate is None or candidate.size_bytes != self.booted.size_bytes:
            return
        self._compiled[key] = candidate
        if len(self._compiled) > COMPILED_SNAPSHOTS:
            del self._compiled[next(iter(self._compiled))]

    def drop_candidate(self) -> None:
        self._candidate = None
