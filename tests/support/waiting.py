"""Waiting for the engine to reach a state: poll the database until a condition holds.

The async twin of `support.polling.until`, and both are needed: a test that runs the engine
on its own event loop must await its probe (a database read) and yield between polls, where
`time.sleep` would stop the very engine it waits for; a test of a server in another process
probes over plain blocking HTTP and has no loop to await on.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

T = TypeVar("T")


async def eventually(probe: Callable[[], Awaitable[T]], *, timeout_s: float = 30.0) -> T:
    """The first truthy result of `probe`, polled every 20 ms; AssertionError on timeout."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while True:
        result = await probe()
        if result:
            return result
        if loop.time() > deadline:
            raise AssertionError(f"condition not reached within {timeout_s} s (last: {result!r})")
        await asyncio.sleep(0.02)
