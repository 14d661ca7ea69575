"""`ClaimBatches`: on SQLite, the claims of every tenant loop waiting for the write turn share
the next claim transaction.

Under a steady stream each tenant claims a run or two at a time, so the engine wrote a claim
transaction per run, and at the soak's rate its one writer was busy most of the time: each
transaction also pays a commit, the connection's reset and the hand-over of the turn, on top
of its statements (docs/performance.md). Claims that queue while the turn is taken now wait
together: the next claim transaction applies each one's decisions in turn (each with its own
`now`, as if alone) and commits them together. A lone claim waits for nothing more than
before; claims only share when they would have queued anyway.

The transaction is written by a task of its own, not by a tenant loop, so that a loop
cancelled while it waits cannot abort the others' claims; and once the claims are committed
that task starts their runs and notes the deferrals at once, so a committed claim always has
its run in this process's books (a stop gives back what has not started) even if the loop
that asked for it is gone. When the database refuses a shared transaction, each claim is
written again alone, so one tenant's bad data fails only its own loop; when it is unreachable
or busy, every loop waiting is told, as each would have been alone.

PostgreSQL has concurrent writers, so there each loop writes its own claim transaction.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncConnection

from engine.deps import Deps
from engine.loop import claiming
from engine.loop.claiming import Decided, StepResult
from engine.loop.tenant_state import TenantState
from engine.runs.runner import Claimed
from engine.store.faults import is_unavailable

StartRun = Callable[[TenantState, Claimed], None]


@dataclass
class _Request:
    """One tenant loop's decisions, waiting for a claim transaction."""

    decided: Sequence[Decided]
    state: TenantState
    now: datetime
    future: asyncio.Future[StepResult] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )


class ClaimBatches:
    """This node's claim transactions: shared on SQLite, one per claim elsewhere."""

    def __init__(self, deps: Deps, start_run: StartRun) -> None:
        self._deps, self._start_run = deps, start_run
        self._shared = deps.db.dialect.name == "sqlite"
        self._waiting: list[_Request] = []
        #: The claims in the transaction being written.
        self._batch: list[_Request] = []
        #: The task writing claim transactions while claims wait; None when none wait.
        self.writer: asyncio.Task[None] | None = None

    async def claim(
        self, decided: Sequence[Decided], state: TenantState, now: datetime
    ) -> StepResult:
        """Write `decided` (decisions taken at `now`); once committed, the claimed runs are
        started and the deferrals noted on `state`."""
        request = _Request(decided, state, now)
        if not self._shared:
            return await self._alone(request)
        self._waiting.append(request)
        if self.writer is None:
            self.writer = asyncio.create_task(self._write(), name="cadenza-claims")
        return await request.future

    async def _write(self) -> None:
        try:
            while self._waiting:
                await self._together()
        finally:  # cancelled (the node stops): what was not committed was not written
            self.writer = None
            for request in [*self._batch, *self._waiting]:
                request.future.cancel()  # a future already told stays as it was
            self._batch, self._waiting = [], []

    async def _together(self) -> None:
        """One transaction for every claim waiting when the turn comes."""
        try:
            async with self._deps.write(urgent=True) as conn:
                batch = self._take_waiting()
                steps = [await self._apply(conn, request) for request in batch]
        except Exception as exc:
            batch = self._batch or self._take_waiting()  # no transaction: those waiting fail
            if len(batch) > 1 and not is_unavailable(exc):
                await self._each_alone(batch)
            for request in batch:
                _tell(request.future, exc)
        else:
            for request, step in zip(batch, steps, strict=True):
                self._started(request, step)
        self._batch = []

    def _take_waiting(self) -> list[_Request]:
        self._batch, self._waiting = self._waiting, []
        return self._batch

    async def _each_alone(self, batch: list[_Request]) -> None:
        """The database refused the shared transaction: each claim in one of its own."""
        for request in batch:
            try:
                await self._alone(request)
            except Exception as exc:
                _tell(request.future, exc)

    async def _alone(self, request: _Request) -> StepResult:
        """`request` in a transaction of its own."""
        async with self._deps.write(urgent=True) as conn:
            step = await self._apply(conn, request)
        self._started(request, step)
        return step

    async def _apply(self, conn: AsyncConnection, request: _Request) -> StepResult:
        r, config = request, self._deps.config
        return await claiming.apply(conn, r.decided, r.state, r.now, config)

    def _started(self, request: _Request, step: StepResult) -> None:
        """Committed: the runs go into this node's books, whether or not their loop waits."""
        request.state.deferred |= step.deferred
        for claimed in step.claimed:
            self._start_run(request.state, claimed)
        if not request.future.done():
            request.future.set_result(step)


def _tell(future: asyncio.Future[StepResult], exc: BaseException) -> None:
    if not future.done():
        future.set_exception(exc)
