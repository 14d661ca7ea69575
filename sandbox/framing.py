"""Length-prefixed JSON frames between the engine and a worker process.

The engine never reads an unbounded amount: a frame longer than the reader's limit is a
protocol violation, which ends the run as `crashed`.
"""

from __future__ import annotations

import asyncio
import json
import socket
import struct
from typing import Any

_HEADER = struct.Struct(">I")


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


async def read(sock: socket.socket, limit_bytes: int) -> Any:
    """Async receive (engine side, non-blocking `sock`); EOFError on a closed peer, FrameError
    on garbage or on a frame longer than `limit_bytes`."""
    loop = asyncio.get_running_loop()
    header = await _read_exactly(loop, sock, _HEADER.size)
    size = _HEADER.unpack(header)[0]
    if size > limit_bytes:
        raise FrameError(f"worker sent a frame of {size} bytes (limit {limit_bytes})")
    body = await _read_exactly(loop, sock, size)
    try:
        return json.loads(body)
    except (ValueError, RecursionError) as exc:
        raise FrameError(f"worker sent malformed JSON: {exc}") from None


async def _read_exactly(loop: asyncio.AbstractEventLoop, sock: socket.socket, size: int) -> bytes:
    buffer = bytearray()
    while len(buffer) < size:
        chunk = await loop.sock_recv(sock, min(size - len(buffer), 1 << 20))
        if not chunk:
            raise EOFError("worker closed the connection")
        buffer += chunk
    return bytes(buffer)
