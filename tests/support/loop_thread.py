"""An event loop on a thread of its own, for property tests that drive the async engine.

Hypothesis calls a test once per example, synchronously; the engine, its sandbox and its
database live on this loop for the whole test, and each example runs a coroutine there.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

import uvloop

T = TypeVar("T")


class LoopThread:
    def __init__(self) -> None:
        self._loop = uvloop.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="test-loop")
        self._thread.start()

    def run(self, coroutine: Coroutine[Any, Any, T], timeout_s: float = 120.0) -> T:
        """Run `coroutine` on the loop and wait for its result."""
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(timeout_s)

    def close(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join()
        self._loop.close()
