"""Waiting for a server to reach a state: poll a condition until it holds or a deadline.

The engine runs actions on its own schedule, so tests watch for the result over HTTP or in the
database; the short pause between polls only spares the server, it synchronises nothing.
Tests that run the engine in their own event loop wait with `support.waiting.eventually`
instead, which awaits its probe and never blocks that loop.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def until(probe: Callable[[], T], timeout_s: float = 30.0, pause_s: float = 0.1) -> T:
    """The first truthy result of `probe`; AssertionError after `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    while True:
        if found := probe():
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {timeout_s} s")
        time.sleep(pause_s)
