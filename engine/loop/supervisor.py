"""This process's share of the engine: the dispatcher, tenant loops, runs, and the
housekeeping loops (sweeper, leases, delivery, retention).

A node starts under a name that survives restarts (`engine.loop.identity`) and first takes back
what its previous incarnation had claimed (`engine.loop.takeback`), so a restart resumes at once.

The dispatcher keeps no per-tenant timers: it asks the database for the earliest pending
actions of tenants without a loop, starts a loop for each tenant with work due, and sleeps
until the next due time (capped, woken at once by a change made in this process). A tenant's
loop exits when it has nothing due soon, so idle tenants cost nothing.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection

from engine.deps import Deps
from engine.domain.changes import Change
from engine.loop import identity
from engine.loop.backoff import Backoff
from engine.loop.claim_batches import ClaimBatches
from engine.loop.claim_lead import ClaimLead
from engine.loop.housekeeping import housekeeping_loops, renewal_loop
from engine.loop.run_slots import RunSlots
from engine.loop.run_tasks import RunTasks
from engine.loop.stopping import stop
from engine.loop.takeback import Loss, take_back
from engine.loop.tenant_loop import TenantLoop
from engine.loop.tenant_state import COMPETING_WINDOW_PER_SLOT, WINDOW_PER_SLOT, TenantState
from engine.ops import metrics
from engine.runs.recorder import Completer
from engine.store import claims, nodes
from engine.store.faults import is_unavailable
from tenants.errors import NotFound
from tenants.quotas import load_profile
from tenants.usage import get_usage

log = logging.getLogger("cadenza.engine")
#: Rows the dispatcher reads per look at the queue.
DISPATCH_ROWS = 64
#: A tenant's loop is started this long before its next action is claimed (the claim lead
#: before its due time; in all at most half the wake cap), so that then the loop only has to
#: claim (it has read the action already).
LEAD = timedelta(milliseconds=200)
#: Idle tenants whose state (quotas, lease, usage) is kept for a quick restart of their loop.
MAX_IDLE_STATES = 10_000


class Supervisor:
    """Owns this process's tenant loops and the services around them: the dispatcher that
    starts a loop for each tenant with work due, lease renewal and housekeeping, the runs in
    flight and their completer; it stops them all in order (`engine.loop.stopping`)."""

    def __init__(self, deps: Deps) -> None:
        self.deps = deps
        self.completer = Completer(deps, deps.config.completion_batch_size)
        self.slots = RunSlots(deps.config.max_concurrency)
        #: How long before their due time its tenants' loops claim (they share the writers).
        self.claim_lead = ClaimLead()
        self.runs = RunTasks(deps, self.completer, self.slots, self._settled, self.wake)
        self.claims = ClaimBatches(deps, self.runs.start)
        self._tenants: dict[str, TenantState] = {}
        self._wake = asyncio.Event()
        #: The dispatcher and housekeeping: they stop first when the node stops.
        self.services: list[asyncio.Task[Any]] = []
        #: The completer and lease renewal: they stop last.
        self.keepers: list[asyncio.Task[Any]] = []
        self.is_stopping = False
        self.hurry = asyncio.Event()
        self._unwatch_sandbox: Callable[[], None] | None = None

    @classmethod
    async def started(cls, deps: Deps) -> Supervisor:
        """Take this node's name, take back its previous incarnation's claims, start."""
        now = deps.clock.now()
        async with deps.write() as conn:
            name = await identity.claim_name(conn, deps.config.node_name, now, deps.config.lease_s)
            deps.config = replace(deps.config, node_name=name.name)
            if name.inherits_claims:
                left = await claims.of_node(conn, name.name)
                taken = await take_back(conn, left, now, Loss.RESTARTED)
                _log_taken_back(name.name, len(left), len(taken.given_back))
        node = cls(deps)
        node.services = [asyncio.create_task(node._dispatch(), name="cadenza-dispatcher")]
        node.services += [asyncio.create_task(c) for c in housekeeping_loops(node)]
        node.keepers = [
            asyncio.create_task(node.completer.run(), name="cadenza-completer"),
            asyncio.create_task(renewal_loop(node), name="cadenza-lease-renewal"),
        ]
        for task in [*node.services, *node.keepers]:
            task.add_done_callback(_report_death)
        node._unwatch_sandbox = metrics.watch_sandbox(deps.sandbox)
        return node

    def wake(self, tenant_id: str, change: Change) -> None:
        """A tenant's rules or actions changed: look again now."""
        state = self._tenants.get(tenant_id)
        if state is not None:
            state.note_change(change)
        self._wake.set()

    async def stop(self, grace_s: float = 0.0) -> None:
        """Stop claiming, give back what has not started, let runs finish for up to
        `grace_s` (or until `hurry` is set), then leave (see `engine.loop.stopping`)."""
        await stop(self, grace_s)
        metrics.ACTIVE_TENANTS.set(0)
        if self._unwatch_sandbox is not None:
            self._unwatch_sandbox()
            self._unwatch_sandbox = None

    def loop_tasks(self) -> list[asyncio.Task[None]]:
        """The tenant loops, and the task writing their claims."""
        loops = [s.loop_task for s in self._tenants.values() if s.loop_task is not None]
        return loops if self.claims.writer is None else [*loops, self.claims.writer]

    async def _dispatch(self) -> None:
        backoff = Backoff()
        while True:
            try:
                await self._dispatch_until_failure(backoff)
            except Exception:
                if backoff.failures == 0:
                    log.exception("dispatcher failed; retrying with backoff")
                await backoff.wait()

    async def _dispatch_until_failure(self, backoff: Backoff) -> None:
        config = self.deps.config
        while True:
            self._wake.clear()
            now = self.deps.clock.now()
            active = [t for t, s in self._tenants.items() if s.loop_task is not None]
            async with self.deps.db.connect() as conn:
                rows = await nodes.upcoming(
                    conn,
                    config.node_name,
                    now,
                    active,
                    DISPATCH_ROWS,
                    use_leases=config.use_tenant_leases,
                )
            lead = min(LEAD + self.claim_lead.value, timedelta(seconds=config.wake_cap_s / 2))
            soon = now + lead
            due = [t for t, at in rows if at <= soon]
            started = [await self._activate(t) for t in dict.fromkeys(due)]
            backoff.reset()
            if any(started) and len(due) == len(rows) == DISPATCH_ROWS:
                continue
            next_at = rows[len(due)][1] - lead if len(rows) > len(due) else None
            await self.deps.clock.sleep_until(next_at, self._wake, config.wake_cap_s)

    async def _activate(self, tenant_id: str) -> bool:
        """Start the tenant's loop, if this node holds (or can take) its lease."""
        state = self._tenants.get(tenant_id)
        if state is not None and state.is_idle and state.is_stale(self.deps.clock.now()):
            del self._tenants[tenant_id]
            state = None
        state = state or await self._load_state(tenant_id)
        if state is None or state.loop_task is not None:
            return False
        state.loop_task = asyncio.create_task(
            self._run_tenant(state), name=f"cadenza-tenant-{tenant_id}"
        )
        metrics.ACTIVE_TENANTS.inc()
        return True

    async def _load_state(self, tenant_id: str) -> TenantState | None:
        config, now = self.deps.config, self.deps.clock.now()
        async with self.deps.write() as conn:
            if config.use_tenant_leases and not await self._take_lease(conn, tenant_id, now):
                return None
            try:
                profile = await load_profile(conn, tenant_id)
            except NotFound:
                return None
            usage = await get_usage(conn, tenant_id, now.date())
        window = WINDOW_PER_SLOT if config.use_tenant_leases else COMPETING_WINDOW_PER_SLOT
        state = TenantState(profile, now.date(), usage, loaded_at=now, window_per_slot=window)
        self._tenants[tenant_id] = state
        return state

    async def _take_lease(self, conn: AsyncConnection, tenant_id: str, now: datetime) -> bool:
        """Take the tenant's lease if it is free and this node holds less than its fair share."""
        config = self.deps.config
        alive_since = now - timedelta(seconds=config.lease_s)
        share = await nodes.fair_share(conn, config.node_name, now, alive_since)
        if await nodes.held_count(conn, config.node_name, now) >= share:
            return False
        until = now + timedelta(seconds=config.lease_s)
        return await nodes.acquire_lease(conn, tenant_id, config.node_name, now, until)

    async def rebalance(self, conn: AsyncConnection, now: datetime) -> None:
        """Give up tenants beyond the fair share (other nodes joined): stop their loops and
        release their leases; runs already claimed finish here as claimed."""
        config = self.deps.config
        alive_since = now - timedelta(seconds=config.lease_s)
        share = await nodes.fair_share(conn, config.node_name, now, alive_since)
        surplus = await nodes.held_count(conn, config.node_name, now) - share - 1
        for tenant_id in list(self._tenants)[: max(surplus, 0)]:
            state = self._tenants.pop(tenant_id)
            if state.loop_task is not None:
                state.loop_task.cancel()
            await nodes.release_tenant(conn, tenant_id, config.node_name)
            log.info(
                "released tenant %s to another node (fair share %d)",
                tenant_id,
                share,
                extra={"tenant_id": tenant_id},
            )

    async def _run_tenant(self, state: TenantState) -> None:
        try:
            await TenantLoop(self.deps, state, self.claims, self.claim_lead).run()
        except Exception as exc:
            if not is_unavailable(exc):  # the dispatcher reports an unreachable database
                log.exception(
                    "tenant loop of %s failed; it restarts when work is due",
                    state.tenant_id,
                    extra={"tenant_id": state.tenant_id},
                )
            # No hot loop on a lasting failure, and no lockstep of every tenant's restart.
            await asyncio.sleep(self.deps.config.wake_cap_s * random.uniform(0.5, 1.5))
        finally:
            state.loop_task = None
            metrics.ACTIVE_TENANTS.dec()
            self._forget_if_idle(state)
            self._wake.set()

    def _forget_if_idle(self, state: TenantState) -> None:
        """Drop an idle tenant's state once too many are kept, or when it is stale."""
        if not state.is_idle or self._tenants.get(state.tenant_id) is not state:
            return
        if len(self._tenants) > MAX_IDLE_STATES or state.is_stale(self.deps.clock.now()):
            del self._tenants[state.tenant_id]

    def _settled(self, state: TenantState) -> None:
        """A run of a tenant without a loop was recorded: maybe forget it, look again."""
        self._forget_if_idle(state)
        self._wake.set()

    def in_flight_ids(self) -> list[int]:
        """Actions this node claimed and has not recorded yet."""
        return list(self.runs.claimed)


def _report_death(task: asyncio.Task[Any]) -> None:
    """A side task must run as long as its node: its end is a bug to see in the log."""
    if not task.cancelled() and task.exception() is not None:
        log.error("engine task %s died", task.get_name(), exc_info=task.exception())


def _log_taken_back(name: str, left: int, given_back: int) -> None:
    if left:
        log.warning(
            "node %s restarted: took back %d claims of its previous run (%d had not "
            "started and are pending again; the others are retried as lost attempts)",
            name,
            left,
            given_back,
        )
