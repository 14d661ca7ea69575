"""One task that commits finished runs in batches: whatever finished while the previous batch
was being written, or within `LINGER_S` of the first run waiting, goes into one transaction.

Lingering trades a few milliseconds before a run is recorded (nothing waits on that: the next
occurrence was planned when the action was claimed) for fewer transactions under a steady
load, where runs finish one by one: there a transaction per run was the engine's largest
cost (docs/performance.md).

A batch mixes tenants, so it must never fail for one record: when the database refuses a
batch, the completer splits it in halves and commits each (in order, so that each tenant's kv
changes are still validated in the order their runs ended), down to the one record it cannot
store, which is recorded as an engine error on that run alone. When the database is
unreachable or locked instead, nothing is wrong with the batch: the completer keeps it and
tries again, backing off, until the database answers.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence
from datetime import datetime

from engine.deps import Deps
from engine.loop.backoff import Backoff
from engine.ops import metrics, tracing
from engine.ops.logs import action_ids
from engine.runs.commit import Completion, Recorded, commit_batch
from engine.runs.runner import unstorable
from engine.store import claims
from engine.store.claims import StartMark
from engine.store.faults import is_unavailable

log = logging.getLogger("cadenza.engine")
#: How long the first finished run of a batch waits for others to share its transaction.
LINGER_S = 0.01
#: How long start marks wait for a finished run to share its transaction: in a burst runs end
#: all the time and the marks ride along; a transaction for marks alone cost SQLite's write
#: lock a fifth more transactions (and claims their turn). A run that started this recently
#: before its node died counts as not started.
START_LINGER_S = 0.2

Item = tuple[Completion, "asyncio.Future[Recorded]"]


class Completer:
    def __init__(self, deps: Deps, batch_size: int) -> None:
        self._deps = deps
        self._batch_size = batch_size
        self._items: list[Item] = []
        self._starts: list[StartMark] = []
        #: Something waits to be written; a finished run waits to be recorded.
        self._ready = asyncio.Event()
        self._submitted = asyncio.Event()
        self._idle = asyncio.Event()
        self._idle.set()

    def submit(self, completion: Completion) -> asyncio.Future[Recorded]:
        """Queue a completion; the future says what became of it once it is recorded."""
        future: asyncio.Future[Recorded] = asyncio.get_running_loop().create_future()
        self._items.append((completion, future))
        self._submitted.set()
        self._wake()
        return future

    def mark_started(self, action_id: int, claim_version: int, started_at: datetime) -> None:
        """Write down, with the next batch, that the claimed run started."""
        self._starts.append(StartMark(action_id, claim_version, started_at))
        self._wake()

    def _wake(self) -> None:
        self._idle.clear()
        self._ready.set()

    async def drained(self) -> None:
        """Return once everything submitted so far is recorded."""
        await self._idle.wait()

    async def run(self) -> None:
        while True:
            await self._ready.wait()
            if not self._items:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._submitted.wait(), START_LINGER_S)
            if len(self._items) < self._batch_size:
                await asyncio.sleep(LINGER_S)
            self._ready.clear()
            self._submitted.clear()
            batch, self._items = self._items[: self._batch_size], self._items[self._batch_size :]
            starts, self._starts = self._starts, []
            await self._record(batch, starts)
            if self._items:
                self._submitted.set()
            if self._items or self._starts:
                self._ready.set()
            else:
                self._idle.set()

    async def _record(self, batch: list[Item], starts: Sequence[StartMark] = ()) -> None:
        """Commit `batch` (and the start marks), waiting out an unreachable database; split
        it if it is refused."""
        if not batch and not starts:
            return
        backoff = Backoff()
        while True:
            started_at = self._deps.clock.now()
            try:
                async with self._deps.write() as conn:
                    await claims.mark_started(conn, starts)
                    recorded = await commit_batch(conn, [c for c, _ in batch])
            except Exception as exc:
                if not is_unavailable(exc):
                    await self._refused(batch, starts, exc)
                    return
                if backoff.failures == 0:
                    log.warning("cannot record %d runs yet, retrying: %s", len(batch), exc)
                await backoff.wait()
                continue
            tracing.record_spans([c.trace for c, _ in batch], started_at, self._deps.clock.now())
            _resolve(batch, recorded)
            return

    async def _refused(
        self, batch: list[Item], starts: Sequence[StartMark], exc: Exception
    ) -> None:
        if not batch:  # only start marks: should their node die, the runs count as unstarted
            log.error("could not write %d start marks: %s", len(starts), exc)
            return
        await self._record([], starts)
        await self._split(batch, exc)

    async def _split(self, batch: list[Item], exc: Exception) -> None:
        if len(batch) > 1:
            half = len(batch) // 2
            await self._record(batch[:half])
            await self._record(batch[half:])
            return
        completion, future = batch[0]
        detail = f"{type(exc).__name__}: {exc}".encode("utf-8", "replace").decode()[:300]
        log.error(
            "the record of action %s's run was refused: %s",
            completion.action_id,
            detail,
            extra=action_ids(completion.action),
        )
        try:
            async with self._deps.write() as conn:
                await commit_batch(conn, [unstorable(completion, detail)])
        except Exception:  # the lease expires and the sweeper records the attempt
            log.exception("could not record the engine error of action %s", completion.action_id)
        if not future.done():
            future.set_result(Recorded.UNSTORABLE)


def _resolve(batch: list[Item], recorded: dict[int, Recorded]) -> None:
    for completion, future in batch:
        outcome = recorded[completion.action_id]
        if outcome is Recorded.LOST:
            metrics.CLAIMS_LOST.inc()
            log.warning(
                "the run of action %s ended after this node's claim on it had lapsed (its lease "
                "expired or another node took it): its record and effects were refused, and the "
                "action's holder or a sweep records its attempt; a lease shorter than the runs "
                "or a stalled node causes this (CADENZA_LEASE_S)",
                completion.action_id,
                extra=action_ids(completion.action),
            )
        if not future.done():
            future.set_result(outcome)
