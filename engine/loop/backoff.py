"""Waiting out a database that is unreachable or locked: exponential delays with jitter, so
that the loops of every node do not knock again in lockstep when it returns."""

from __future__ import annotations

import asyncio

from engine.domain.policies import retry_delay

#: The first wait and the longest: a returning database is noticed within `CAP_S`.
FIRST_S = 0.1
CAP_S = 5.0


class Backoff:
    """Delays of one loop's consecutive failures; `reset` after a success."""

    def __init__(self, first_s: float = FIRST_S, cap_s: float = CAP_S) -> None:
        self._first_s = first_s
        self._cap_s = cap_s
        self.failures = 0

    def reset(self) -> None:
        self.failures = 0

    async def wait(self) -> None:
        self.failures += 1
        delay = retry_delay(self.failures, self._first_s, self._cap_s)
        await asyncio.sleep(delay.total_seconds())
