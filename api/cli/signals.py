"""SIGTERM and SIGINT for the long-running commands: the first asks for a clean stop (the
engine drains: `engine.loop.stopping`), a second one cuts the drain's grace period short.

The handlers are plain `signal.signal` handlers, installed before uvicorn starts: uvicorn
captures the signals while it serves and, once it has shut down, restores these handlers and
raises each signal it caught once more, so the first signal reaches them too (uvicorn's own
default would otherwise end the process before the engine has drained).
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Callable
from types import FrameType

SIGNALS = (signal.SIGTERM, signal.SIGINT)


class StopSignals:
    """Counts the stop signals received; `stopped()` returns at the first."""

    def __init__(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        self.on_second: Callable[[], None] = lambda: None
        for signum in SIGNALS:
            signal.signal(signum, self._received)

    def _received(self, signum: int, frame: FrameType | None) -> None:
        self._loop.call_soon_threadsafe(self._count)

    def _count(self) -> None:
        if self._stop.is_set():
            self.on_second()
        self._stop.set()

    async def stopped(self) -> None:
        await self._stop.wait()
