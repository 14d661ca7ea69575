"""Typed, length-prefixed frames between the engine and a worker process.

Every frame is a 5-byte header (body length, kind) and a body: JSON for messages, raw bytes
for code (`BLOB`, `ARTIFACT`). The engine never reads an unbounded amount and never parses a
frame it has not sized first: its `Channel` checks each frame's length against the limit for
its kind (set per run, see `sandbox.conversation`) as soon as the header arrives, before
buffering the body; what a frame holds is parsed only after the conversation has checked that
it may arrive at all (a host call beyond the run's count, a log line beyond its budget).
"""

from __future__ import annotations

import asyncio
import json
import socket
import struct
from collections import deque
from collections.abc import Mapping
from enum import IntEnum
from typing import Any

_HEADER = struct.Struct(">IB")
#: Frames cut but not yet read; past it the engine stops reading the socket, so a worker that
#: writes faster than the engine reads (log lines need no reply) blocks on its own send.
_MAX_PENDING_FRAMES = 16
#: The most one read takes from a worker's socket.
_READ_BYTES = 64 * 1024


class Kind(IntEnum):
    """What a frame carries, and which way it travels."""

    #: engine -> worker: a job to run (JSON).
    JOB = 1
    #: engine -> worker: the answer to a host call (JSON).
    REPLY = 2
    #: engine -> worker: the job's code, source or compiled (bytes).
    BLOB = 3
    #: worker -> engine: a host call waiting for its REPLY (JSON).
    CALL = 4
    #: worker -> engine: one log line, no reply (UTF-8 text).
    LOG = 5
    #: worker -> engine: code it compiled, for its tenant's next workers (bytes).
    ARTIFACT = 6
    #: worker -> engine: how the job ended (JSON).
    DONE = 7


class FrameError(Exception):
    """The peer sent something that is not a well-formed, bounded frame."""


def encode(kind: Kind, body: Any) -> bytes:
    data = body if isinstance(body, bytes) else dumps(body).encode()
    return _HEADER.pack(len(data), kind) + data


def dumps(value: Any) -> str:
    """Compact JSON, refusing NaN and infinities (they are not JSON)."""
    return json.dumps(value, separators=(",", ":"), allow_nan=False)


def loads(data: bytes) -> Any:
    """JSON from a frame body; FrameError for anything else (a nesting bomb included)."""
    try:
        return json.loads(data)
    except (ValueError, RecursionError) as exc:
        raise FrameError(f"malformed JSON in a frame: {exc}") from None


def send(sock: socket.socket, kind: Kind, body: Any) -> None:
    """Blocking send (worker side)."""
    sock.sendall(encode(kind, body))


class Receiver:
    """Blocking receives of whole frames (worker side), each read taking what has arrived: a
    frame's header and body, sent together, then cost one call instead of two."""

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock
        self._buffer = bytearray()

    def receive(self, limit_bytes: int) -> tuple[Kind, bytes]:
        """The next frame: its kind and raw body, FrameError past `limit_bytes`."""
        size, kind = _HEADER.unpack(self._take(_HEADER.size))
        if size > limit_bytes:
            raise FrameError(f"frame of {size} bytes exceeds {limit_bytes}")
        return Kind(kind), self._take(size)

    def _take(self, size: int) -> bytes:
        buffer = self._buffer
        while len(buffer) < size:
            chunk = self._sock.recv(max(_READ_BYTES, min(size - len(buffer), 1 << 20)))
            if not chunk:
                raise EOFError("peer closed the connection")
            buffer += chunk
        taken = bytes(buffer[:size])
        del buffer[:size]
        return taken


def _refusal(kind: int, size: int, limit: int | None) -> str:
    name = Kind(kind).name if kind in set(Kind) else f"unknown ({kind})"
    if limit is None:
        return f"the worker sent a {name} frame, which this job does not take"
    return f"the worker sent a {name} frame of {size} bytes (limit {limit} bytes)"


class Channel:
    """The engine's end of one worker socket: one reader registration for the worker's whole
    life (registering per run cost two epoll calls a run); frames are cut as they arrive,
    each checked against the current job's limit for its kind before its body is buffered."""

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock
        self._limits: Mapping[Kind, int] = {}
        self._loop = asyncio.get_running_loop()
        self._buffer = bytearray()
        #: Where the socket is read into: `recv(n)` allocates n bytes a call, and a large
        #: allocation (mapped and unmapped each time) cost more than the rest of a read.
        self._scratch = bytearray(_READ_BYTES)
        self._scratch_view = memoryview(self._scratch)
        self._frames: deque[tuple[Kind, bytes]] = deque()
        self._error: Exception | None = None
        self._waiter: asyncio.Future[None] | None = None
        self._is_reading = False
        sock.setblocking(False)
        self._resume()

    @property
    def is_quiet(self) -> bool:
        """Nothing arrived since the last job ended and the worker has not hung up: a parked
        worker only ever waits for its next job."""
        return not (self._buffer or self._frames or self._error)

    def begin(self, limits: Mapping[Kind, int]) -> None:
        """A new job: from now on a frame of a kind not in `limits`, or longer than its
        limit, ends the conversation."""
        self._limits = limits

    async def read(self) -> tuple[Kind, bytes]:
        """The next frame; EOFError once the worker has closed, FrameError on garbage."""
        while not self._frames:
            if self._error is not None:
                raise self._error
            self._waiter = self._loop.create_future()
            await self._waiter
        frame = self._frames.popleft()
        if self._error is None and len(self._frames) < _MAX_PENDING_FRAMES:
            self._resume()
        return frame

    async def send(self, kind: Kind, body: Any) -> None:
        data = encode(kind, body)
        try:  # a job fits the idle socket's buffer: one call, no future
            sent = self._sock.send(data)
        except BlockingIOError:
            sent = 0
        if sent < len(data):
            await self._loop.sock_sendall(self._sock, data[sent:])

    def close(self) -> None:
        self._pause()

    def _resume(self) -> None:
        if not self._is_reading:
            self._loop.add_reader(self._sock.fileno(), self._on_readable)
            self._is_reading = True

    def _pause(self) -> None:
        if self._is_reading:
            self._loop.remove_reader(self._sock.fileno())
            self._is_reading = False

    def _on_readable(self) -> None:
        try:
            size = self._sock.recv_into(self._scratch)
        except BlockingIOError:
            return
        except OSError:
            size = 0
        if not size:
            self._stop(EOFError("worker closed the connection"))
            return
        self._buffer += self._scratch_view[:size]
        try:
            self._cut()
        except FrameError as exc:
            self._stop(exc)
            return
        if len(self._frames) >= _MAX_PENDING_FRAMES:
            self._pause()
        self._wake()

    def _cut(self) -> None:
        while len(self._buffer) >= _HEADER.size:
            size, kind = _HEADER.unpack_from(self._buffer)
            limit = self._limits.get(kind)  # type: ignore[call-overload]
            if limit is None or size > limit:
                raise FrameError(_refusal(kind, size, limit))
            end = _HEADER.size + size
            if len(self._buffer) < end:
                return
            self._frames.append((Kind(kind), bytes(self._buffer[_HEADER.size : end])))
            del self._buffer[:end]

    def _stop(self, error: Exception) -> None:
        self._error = error
        self._pause()
        self._wake()

    def _wake(self) -> None:
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)
