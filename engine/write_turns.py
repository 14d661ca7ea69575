"""`WriteTurns`: this process's SQLite writers one at a time, a claim ahead of the others.

SQLite has one writer, so the engine's writers take turns in-process (`engine.deps.Deps.write`)
rather than back off in SQLite's sleeps. Served in arrival order, a claim whose action is due
waited for every completion batch queued before it, each of which may itself wait for the
write lock held by an API process: timing the claims under API load showed that most late
runs had been claimed after their due time, and that their wait for a turn was most of it
(docs/performance.md). An urgent writer (a claim) therefore goes ahead of the other writers
waiting, but while both kinds wait the turns alternate: a claim waits for at most the writer
in progress and one other, and the others are never starved. (Urgent writers always first
starved them: at 64 API clients, fifty tenants' claims came faster than turns ended, each
waiting for the API's lock, and a completion waited over a minute for its turn.) A writer in
progress is never interrupted, and within each kind the order is arrival.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import AsyncIterator


class WriteTurns:
    """A lock with two queues: an urgent waiter is handed the lock before the others, unless
    the last holder was urgent too and another waits."""

    def __init__(self) -> None:
        self._held = False
        #: Whether the current (or last) holder was urgent.
        self._urgent_held = False
        #: Waiting writers, urgent first; a cancelled one stays until its turn comes and is
        #: skipped then.
        self._queues: tuple[deque[asyncio.Future[None]], ...] = (deque(), deque())

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
            self._held, self._urgent_held = True, urgent
            return
        future = asyncio.get_running_loop().create_future()
        self._queues[0 if urgent else 1].append(future)
        try:
            await future
        except asyncio.CancelledError:
            if future.done() and not future.cancelled():
                self._release()  # handed the turn as it was cancelled: pass it on
            raise

    def _release(self) -> None:
        """Hand the turn to the first live waiter, urgent ones first unless an urgent one just
        held it, or free it."""
        urgent, other = self._queues
        order = (
            ((other, False), (urgent, True))
            if self._urgent_held
            else ((urgent, True), (other, False))
        )
        for queue, is_urgent in order:
            while queue:
                future = queue.popleft()
                if not future.done():
                    self._urgent_held = is_urgent
                    future.set_result(None)
                    return
        self._held = False
