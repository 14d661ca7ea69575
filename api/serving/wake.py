"""The wake channel: API processes tell the engine process that a tenant's rules or actions
changed, so that it looks at the database now instead of at its next poll.

A Unix stream socket owned by the engine process; each API process keeps one connection and
writes one line per change: its kind (`engine.domain.changes.Change`: work added, or changed)
and the tenant's id. (Datagrams were tried first: Linux queues only 10 per socket by
default, so a burst of writes lost wakes.) Sending never blocks and never fails a request: the
database is the truth, and a wake lost (the engine restarting, its buffer full) only delays
the engine to its next look at the queue, which it makes every `wake_cap_s` anyway.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections.abc import AsyncIterator
from pathlib import Path

from engine.domain.changes import Change, Wake

log = logging.getLogger("cadenza.serve")
#: Tenant ids are short; a longer line is not ours, and its connection is closed.
MAX_LINE_BYTES = 512


class WakeSender:
    """The API side: one non-blocking connection, opened when first needed and again after
    it broke."""

    def __init__(self, path: Path) -> None:
        self._path = str(path)
        self._sock: socket.socket | None = None

    def send(self, tenant_id: str, change: Change) -> None:
        """Tell the engine; if it cannot hear now, its next poll finds the change."""
        tenant = tenant_id.replace("\n", " ")
        line = f"{change} {tenant}\n".encode()
        try:
            sock = self._sock or self._connect()
            if sock.send(line) == len(line):
                return
        except OSError as exc:  # no engine listening, or its buffer is full: it will poll
            log.debug("wake for tenant %s not delivered (%s); the engine will poll", tenant_id, exc)
        self.close()  # a line sent in part would garble the next one

    def _connect(self) -> socket.socket:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.connect(self._path)
        except OSError:
            sock.close()
            raise
        sock.setblocking(False)
        self._sock = sock
        return sock

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None


@contextlib.asynccontextmanager
async def listening(path: Path, on_wake: Wake) -> AsyncIterator[None]:
    """The engine side: call `on_wake(tenant_id, change)` for each line any API process writes
    to `path`, on the running event loop, until the block ends (a line not of this form ends
    its connection: the sender connects again)."""

    async def read(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(ValueError, ConnectionError, UnicodeDecodeError):
            while line := await reader.readline():
                change, _, tenant_id = line.decode().rstrip("\n").partition(" ")
                on_wake(tenant_id, Change(change))
        writer.close()

    path.unlink(missing_ok=True)
    server = await asyncio.start_unix_server(read, str(path), limit=MAX_LINE_BYTES)
    try:
        yield
    finally:
        server.close()
        path.unlink(missing_ok=True)
