"""`WriteTurns`: this process's SQLite writers one at a time, a claim ahead of the others.

SQLite has one writer, so the engine's writers take turns in-process (`engine.deps.Deps.write`)
rather than back off in SQLite's sleeps. Served in arrival order, a claim whose action is due
waited for every completion batch queued before it, each of which may itself wait for the
write lock held by an API process: timing the claims under API load showed that most late
runs had been claimed after their due time, and that their wait for a turn was most of it
(docs/performance.md). An urgent writer (a claim) therefore goes ahead of the other writers
waiting, unless the first of them has waited `PATIENCE_S`: then that one goes next, so that
nothing starves. (With urgent writers always first, fifty tenants' claims under API load,
each waiting for a lock the API processes took, came faster than turns ended, and a
completion waited over a minute for its turn: decision 146.) A writer in progress is never
interrupted, and within each kind the order is arrival.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from collections.abc import AsyncIterator, Callable

#: How long urgent writers may pass a waiting writer that is not urgent (a completion batch,
#: which records every run that ended meanwhile: it grows rather than falls behind).
PATIENCE_S = 0.1

#: A waiting writer: when it started to wait, and the future its turn is handed through.
_Waiter = tuple[float, asyncio.Future[None]]


class WriteTurns:
    """A lock with two queues: urgent waiters are handed the lock first, unless the first of
    the others has waited `patience_s` (by `clock`, in seconds)."""

    def __init__(
        self, patience_s: float = PATIENCE_S, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._held = False
        self._patience_s, self._clock = patience_s, clock
        #: Waiting writers, urgent ones and the others; a cancelled one stays until it reaches
        #: the front, and is dropped then.
        self._urgent: deque[_Waiter] = deque()
        self._others: deque[_Waiter] = deque()

    @contextlib.asynccontextmanager
    async def turn(self, urgent: bool = False) -> AsyncIterator[None]:
        """Hold the only write turn for the duration of the block."""
        await self._acquire(urgent)
        try:
            yield
        finally:
            self._release()

    async def _acquire(self, urgent: bool) -> None:
        if not self._held:  # a free turn leaves no live waiter behind (`_release` hands over)
            self._held = True
            return
        future = asyncio.get_running_loop().create_future()
        (self._urgent if urgent else self._others).append((self._clock(), future))
        try:
            await future
        except asyncio.CancelledError:
            if future.done() and not future.cancelled():
                self._release()  # handed the turn as it was cancelled: pass it on
            raise

    def _release(self) -> None:
        """Hand the turn to the next live waiter (`WriteTurns`), or free it."""
        for queue in (self._urgent, self._others):
            while queue and queue[0][1].done():
                queue.popleft()
        others_waited = bool(self._others) and (
            self._clock() - self._others[0][0] >= self._patience_s
        )
        queue = self._others if others_waited or not self._urgent else self._urgent
        if queue:
            queue.popleft()[1].set_result(None)
        else:
            self._held = False
