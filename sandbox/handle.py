"""One worker process as the engine holds it: its socket, a pidfd to kill it by, its state.

Everything here is read from outside the worker (its memory through `/proc`, its output
window), so nothing depends on what the worker says about itself.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import socket
from dataclasses import dataclass, field

from sandbox import output_window
from sandbox.contract import RuntimeName
from sandbox.framing import Channel
from sandbox.warm import Binding

_PAGE_BYTES = os.sysconf("SC_PAGE_SIZE")
#: The /proc/<pid>/statm field that the worker's memory rlimit counts: its whole address
#: space for python (RLIMIT_AS), its writable memory for the wasm runtimes (RLIMIT_DATA).
_STATM_FIELD = {RuntimeName.PYTHON: 0, RuntimeName.MICROPYTHON: 5, RuntimeName.WASM: 5}


@dataclass
class WorkerHandle:
    """One worker process: talk over `sock`, kill through `pidfd` (immune to pid reuse)."""

    pid: int
    sock: socket.socket
    pidfd: int
    #: Its output window (`sandbox.output_window`), read when it ends without a report.
    window_fd: int = -1
    #: Whose runs it serves; None until its first run (and for compile-only workers).
    binding: Binding | None = None
    #: Runs served, and its CPU used and CPU budget as of its last report.
    runs: int = 0
    cpu_used_s: float = 0.0
    cpu_limit_s: float = 0.0
    #: Its memory (see `memory_bytes`) when it was bound, before any tenant code.
    base_memory_bytes: int = 0
    #: The keys of the scripts it has loaded (the engine sends each one once).
    holds: set[str] = field(default_factory=set)
    _channel: Channel | None = field(default=None, repr=False)
    _statm: int | None = field(default=None, repr=False)

    def is_alive(self) -> bool:
        """False once the process has exited (its pidfd turns readable)."""
        return not select.select([self.pidfd], [], [], 0)[0]

    def channel(self) -> Channel:
        """The engine's end of its socket, made at its first run and kept for its life."""
        if self._channel is None:
            self._channel = Channel(self.sock)
        return self._channel

    def is_quiet(self) -> bool:
        """Alive, and silent since its last run (see `Channel.is_quiet`)."""
        return self.is_alive() and (self._channel is None or self._channel.is_quiet)

    def memory_bytes(self) -> int | None:
        """The memory its rlimit counts, read from outside through a descriptor kept open
        (reopening /proc for every run cost more than reading it); None once it is gone."""
        column = _STATM_FIELD[self.binding.runtime if self.binding else RuntimeName.PYTHON]
        try:
            if self._statm is None:
                self._statm = os.open(f"/proc/{self.pid}/statm", os.O_RDONLY)
            return int(os.pread(self._statm, 128, 0).split()[column]) * _PAGE_BYTES
        except (OSError, ValueError, IndexError):
            return None

    def printed(self, limit_bytes: int) -> str:
        """What its current run printed so far (for a run that ended without a report)."""
        return output_window.read(self.window_fd, limit_bytes)

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError, OSError):
            signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)

    def close(self) -> None:
        if self._channel is not None:
            self._channel.close()
        self.sock.close()
        for fd in (self.pidfd, self.window_fd, self._statm):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
