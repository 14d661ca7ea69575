"""A python worker's printed output, mirrored into memory the engine can read after a kill.

A run stopped from outside (its time is up, it crashed, it blew its CPU limit) never sends
its final report, which is what carries its output; without this window, a script that
printed and then hung would be reported with no output at all, the one run whose output its
author most wants to see. The zygote gives each worker a small shared memory file (memfd);
the worker appends every byte it keeps of the run's output to it (no system call), and the
engine reads it only when a worker ended without reporting. The window holds the current run
only (reset when a run starts), and a worker only ever serves one tenant.
"""

from __future__ import annotations

import mmap
import os
import struct

#: Output kept for a run that ends without a report (a run's own output limit may be lower).
WINDOW_BYTES = 256 * 1024
_LENGTH = struct.Struct("<Q")
_HEADER_BYTES = _LENGTH.size
_ROOM = WINDOW_BYTES - _HEADER_BYTES


def create() -> int:
    """A new window's file descriptor (the zygote makes one per worker)."""
    fd = os.memfd_create("cadenza-output", os.MFD_CLOEXEC)
    os.ftruncate(fd, WINDOW_BYTES)
    return fd


class OutputWindow:
    """The worker's side: appends, length last, so a reader never sees bytes not yet written."""

    def __init__(self, fd: int) -> None:
        self._map = mmap.mmap(fd, WINDOW_BYTES)
        self._length = 0

    def reset(self) -> None:
        self._length = 0
        _LENGTH.pack_into(self._map, 0, 0)

    def append(self, data: bytes) -> None:
        chunk = data[: _ROOM - self._length]
        if chunk:
            start = _HEADER_BYTES + self._length
            self._map[start : start + len(chunk)] = chunk
            self._length += len(chunk)
            _LENGTH.pack_into(self._map, 0, self._length)


def read(fd: int, limit_bytes: int) -> str:
    """The engine's side: what the worker's current run printed, at most `limit_bytes` (the
    length is the worker's word, so it is bounded before anything is read)."""
    try:
        (length,) = _LENGTH.unpack(os.pread(fd, _LENGTH.size, 0))
        data = os.pread(fd, min(length, _ROOM, limit_bytes), _HEADER_BYTES)
    except (OSError, struct.error):
        return ""
    return data.decode("utf-8", "replace")
