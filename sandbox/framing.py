"""Length-prefixed JSON frames between the engine and a worker process.

The engine never reads an unbounded amount: a frame longer than the reader's limit is a
protocol violation, which ends the run as `crashed`.
"""

from __future__ import annotations

import asyncio
import json
import socket
import struct
from collections import deque
from typing import Any

_HEADER = struct.Struct(">I")
_MAX_PENDING_FRAMES = 16


class FrameError(Exception):
    """The peer sent something that is not a well-formed, bounded frame."""


def encode(message: Any) -> bytes:
    body = json.dumps(message, separators=(",", ":"), allow_nan=False).encode()
    return _HEADER.pack(len(body)) + body


def send(sock: socket.socket, message: Any) -> None:
    """Blocking send (worker side)."""
    sock.sendall(encode(message))


def receive(sock: socket.socket, limit_bytes: int) -> Any:
    """Blocking receive (worker side)."""
    size = _HEADER.unpack(_exactly(sock, _HEADER.size))[0]
    if size > limit_bytes:
        raise FrameError(f"frame of {size} bytes exceeds {limit_bytes}")
    return json.loads(_exactly(sock, size))


def _exactly(sock: socket.socket, size: int) -> bytes:
    chunks, remaining = [], size
    while remaining:
        chunk = sock.recv(min(remaining, 1 << 20))
        if not chunk:
            raise EOFError("peer closed the connection")
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


class Channel:
    """The engine's end of one worker socket: one reader registration for the worker's whole
    life (registering per run cost two epoll calls a run), frames parsed as they arrive, each
    checked against the current run's `limit_bytes` before it is buffered."""

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock
        self._limit_bytes = 0
        self._loop = asyncio.get_running_loop()
        self._buffer = bytearray()
        self._frames: deque[Any] = deque()
        self._error: Exception | None = None
        self._waiter: asyncio.Future[None] | None = None
        sock.setblocking(False)
        self._loop.add_reader(sock.fileno(), self._on_readable)

    @property
    def is_quiet(self) -> bool:
        """Nothing arrived since the last run ended and the worker has not hung up: a parked
        worker only ever waits for its next job."""
        return not (self._buffer or self._frames or self._error)

    def begin(self, limit_bytes: int) -> None:
        """A new run: frames beyond `limit_bytes` are refused from now on."""
        self._limit_bytes = limit_bytes

    async def read(self) -> Any:
        """The next frame; EOFError once the worker has closed, FrameError on garbage."""
        while not self._frames:
            if self._error is not None:
                raise self._error
            self._waiter = self._loop.create_future()
            await self._waiter
        return self._frames.popleft()

    async def send(self, message: Any) -> None:
        await self._loop.sock_sendall(self._sock, encode(message))

    def close(self) -> None:
        self._loop.remove_reader(self._sock.fileno())

    def _on_readable(self) -> None:
        try:
            data = self._sock.recv(1 << 20)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self._stop(EOFError("worker closed the connection"))
            return
        self._buffer += data
        try:
            self._parse()
        except FrameError as exc:
            self._stop(exc)
        self._wake()

    def _parse(self) -> None:
        while len(self._buffer) >= _HEADER.size:
            size = _HEADER.unpack_from(self._buffer)[0]
            if size > self._limit_bytes or len(self._frames) > _MAX_PENDING_FRAMES:
                raise FrameError(f"worker sent a frame of {size} bytes (limit {self._limit_bytes})")
            end = _HEADER.size + size
            if len(self._buffer) < end:
                return
            body = bytes(self._buffer[_HEADER.size : end])
            del self._buffer[:end]
            try:
                self._frames.append(json.loads(body))
            except (ValueError, RecursionError) as exc:
                raise FrameError(f"worker sent malformed JSON: {exc}") from None

    def _stop(self, error: Exception) -> None:
        self._error = error
        self._loop.remove_reader(self._sock.fileno())
        self._wake()

    def _wake(self) -> None:
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)
