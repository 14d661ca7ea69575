"""One task that commits finished runs in batches: whatever finished while the previous batch
was being written, or within `LINGER_S` of the first run waiting, goes into one transaction.

Lingering trades a few milliseconds before a run is recorded (nothing waits on that: the next
occurrence was planned when the action was claimed) for fewer transactions under a steady
load, where runs finish one by one: at 200 actions/s a transaction per run was the engine's
largest cost."""

from __future__ import annotations

import asyncio
import logging

from engine import metrics, tracing
from engine.completion import Completion, commit_batch
from engine.deps import Deps

log = logging.getLogger("cadenza.engine")
#: How long the first finished run of a batch waits for others to share its transaction.
LINGER_S = 0.01


class Completer:
    def __init__(self, deps: Deps, batch_size: int) -> None:
        self._deps = deps
        self._batch_size = batch_size
        self._queue: asyncio.Queue[tuple[Completion, asyncio.Future[bool]]] = asyncio.Queue()

    def submit(self, completion: Completion) -> asyncio.Future[bool]:
        """Queue a completion; the future says whether its effects were committed."""
        future: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait((completion, future))
        return future

    async def run(self) -> None:
        while True:
            batch = [await self._queue.get()]
            if self._queue.qsize() + 1 < self._batch_size:
                await asyncio.sleep(LINGER_S)
            while len(batch) < self._batch_size and not self._queue.empty():
                batch.append(self._queue.get_nowait())
            await self._commit(batch)

    async def _commit(self, batch: list[tuple[Completion, asyncio.Future[bool]]]) -> None:
        started_at = self._deps.clock.now()
        try:
            async with self._deps.write() as conn:
                held = await commit_batch(conn, [c for c, _ in batch])
        except Exception as exc:  # the database failed: the claims expire and are retried
            log.exception("could not record %d runs; their leases will expire", len(batch))
            for _, future in batch:
                if not future.done():
                    future.set_exception(exc)
            return
        tracing.record_spans([c.trace for c, _ in batch], started_at, self._deps.clock.now())
        for completion, future in batch:
            committed = completion.action_id in held
            if not committed:
                metrics.CLAIMS_LOST.inc()
            if not future.done():
                future.set_result(committed)
