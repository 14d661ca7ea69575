"""The wake channel: API processes tell the engine process that a tenant's rules or actions
changed, so that it looks at the database now instead of at its next poll.

A Unix datagram socket owned by the engine process; each datagram is one tenant id. Sending
never blocks and never fails a request: the database is the truth, and a wake lost (the engine
restarting, its socket buffer full) only delays the engine to its next look at the queue, which
the dispatcher makes at least every `wake_cap_s` anyway.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections.abc import Callable, Iterator
from pathlib import Path

log = logging.getLogger("cadenza.serve")
#: Tenant ids are short; a datagram longer than this is not ours and is dropped.
MAX_DATAGRAM_BYTES = 512
#: Datagrams read per wake-up of the engine's event loop, so a flood cannot hold the loop.
READS_PER_TURN = 256


class WakeSender:
    """The API side: one unbound datagram socket, non-blocking."""

    def __init__(self, path: Path) -> None:
        self._path = str(path)
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self._sock.setblocking(False)

    def send(self, tenant_id: str) -> None:
        """Tell the engine; if it cannot hear now, its next poll finds the change."""
        try:
            self._sock.sendto(tenant_id.encode(), self._path)
        except OSError as exc:  # no engine listening, or its buffer is full: it will poll
            log.debug("wake for tenant %s not delivered (%s); the engine will poll", tenant_id, exc)

    def close(self) -> None:
        self._sock.close()


@contextlib.contextmanager
def listening(path: Path, on_wake: Callable[[str], None]) -> Iterator[None]:
    """The engine side: call `on_wake(tenant_id)` for each datagram at `path`, on the running
    event loop, until the block ends."""
    loop = asyncio.get_running_loop()
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    path.unlink(missing_ok=True)
    sock.bind(str(path))
    sock.setblocking(False)
    loop.add_reader(sock.fileno(), _read_all, sock, on_wake)
    try:
        yield
    finally:
        loop.remove_reader(sock.fileno())
        sock.close()
        path.unlink(missing_ok=True)


def _read_all(sock: socket.socket, on_wake: Callable[[str], None]) -> None:
    for _ in range(READS_PER_TURN):
        try:
            data = sock.recv(MAX_DATAGRAM_BYTES)
        except BlockingIOError:
            return
        with contextlib.suppress(UnicodeDecodeError):
            on_wake(data.decode())
