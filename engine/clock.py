"""Time as the engine sees it: an injectable clock, so policy tests never sleep for minutes.

`sleep_until` is the loop's only way to wait: it returns at the deadline or as soon as `wake`
is set, whichever is first, and never sleeps longer than `cap_s` (the caller re-checks: wall
clocks jump).
"""

from __future__ import annotations

import asyncio
import contextlib
from datetime import UTC, datetime, timedelta
from typing import Protocol


class Clock(Protocol):
    """Where the engine reads the time and waits for it."""

    def now(self) -> datetime:
        """The current instant, aware, in UTC."""

    async def sleep_until(
        self, deadline: datetime | None, wake: asyncio.Event, cap_s: float
    ) -> None:
        """Return at `deadline` (None: no deadline), when `wake` is set, or after `cap_s`."""


async def _wait(wake: asyncio.Event, delay_s: float) -> None:
    """`asyncio.timeout` rather than `wait_for`: the loops wait here at every due time, and
    `wait_for` wraps each wait in a task of its own."""
    if delay_s <= 0 or wake.is_set():
        return
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(delay_s):
            await wake.wait()


class SystemClock:
    """The real wall clock."""

    def now(self) -> datetime:
        return datetime.now(UTC)

    async def sleep_until(
        self, deadline: datetime | None, wake: asyncio.Event, cap_s: float
    ) -> None:
        delay_s = cap_s if deadline is None else (deadline - self.now()).total_seconds()
        await _wait(wake, min(delay_s, cap_s))


class ManualClock:
    """A clock that moves only when told: `advance` wakes every sleeper whose deadline passed."""

    def __init__(self, start: datetime) -> None:
        self._now = start
        self._moved = asyncio.Event()

    def now(self) -> datetime:
        return self._now

    def advance(self, delta: timedelta) -> None:
        self.set(self._now + delta)

    def set(self, instant: datetime) -> None:
        self._now = instant
        self._moved.set()
        self._moved = asyncio.Event()

    async def sleep_until(
        self, deadline: datetime | None, wake: asyncio.Event, cap_s: float
    ) -> None:
        if wake.is_set() or (deadline is not None and deadline <= self._now):
            return
        moved = asyncio.ensure_future(self._moved.wait())
        woken = asyncio.ensure_future(wake.wait())
        try:
            await asyncio.wait({moved, woken}, timeout=cap_s, return_when=asyncio.FIRST_COMPLETED)
        finally:
            moved.cancel()
            woken.cancel()
