"""The guest's linear memory during one host call, bounds-checked.

wasmtime-py's `Memory.read` and `Memory.write` build a ctypes array type and make two C calls
per access (slow, and a host call makes three or four: docs/performance.md); this window asks
for the memory's address and size once per host call and then copies with `ctypes` directly. Every
access is checked against the size first: the pointers come from the guest, and a tenant can
forge them (`uctypes` rewrites any object).
"""

from __future__ import annotations

import ctypes

import wasmtime


class GuestMemory:
    """Valid only during the host call it was made in (the guest may grow, and so move, its
    memory once it runs again)."""

    def __init__(self, memory: wasmtime.Memory, store: wasmtime.Storelike) -> None:
        self._base = ctypes.addressof(memory.data_ptr(store).contents)
        self._size_bytes = memory.data_len(store)

    def read(self, address: int, size_bytes: int) -> bytes:
        self.check(address, size_bytes)
        return ctypes.string_at(self._base + address, size_bytes)

    def write(self, address: int, data: bytes) -> None:
        self.check(address, len(data))
        ctypes.memmove(self._base + address, data, len(data))

    def check(self, address: int, size_bytes: int) -> None:
        """Raise IndexError unless the whole range lies in the guest's memory."""
        if address < 0 or size_bytes < 0 or address + size_bytes > self._size_bytes:
            raise IndexError(f"{size_bytes} bytes at {address} are outside the guest's memory")
