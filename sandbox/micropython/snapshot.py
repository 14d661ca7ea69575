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
