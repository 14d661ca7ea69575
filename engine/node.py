"""This process's share of the engine: the dispatcher, tenant loops, runs, and the
housekeeping loops (sweeper, leases, delivery, retention).

The dispatcher keeps no per-tenant timers: it asks the database for the earliest pending
actions of tenants without a loop, starts a loop for each tenant with work due, and sleeps
until the next due time (capped, woken at once by a change made in this process). A tenant's
loop exits when it has nothing due soon, so idle tenants cost nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Coroutine
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection

from engine import metrics
from engine.completer import Completer
from engine.deps import Deps
from engine.logs import action_ids
from engine.runner import Claimed, RunEnv, execute
from engine.store import nodes, queue
from engine.tenant_loop import tenant_loop
from engine.tenant_state import COMPETING_WINDOW_PER_SLOT, WINDOW_PER_SLOT, TenantState
from tenants.errors import NotFound
from tenants.quotas import load_profile
from tenants.usage import get_usage

log = logging.getLogger("cadenza.engine")
#: Rows the dispatcher reads per look at the queue.
DISPATCH_ROWS = 64
#: A tenant's loop is started this long (at most half the wake cap) before its next action is
#: due, so that at the due time the loop only has to claim (it has read the action already).
LEAD = timedelta(milliseconds=200)
#: Idle tenants whose state (quotas, lease, usage) is kept for a quick restart of their loop.
MAX_IDLE_STATES = 10_000


class Node:
    def __init__(self, deps: Deps) -> None:
        self.deps = deps
        self._env = RunEnv(deps.sandbox, deps.db, deps.clock, deps.config.node_name)
        self._slots = asyncio.Semaphore(deps.config.max_concurrency)
        self._completer = Completer(deps, deps.config.completion_batch_size)
        self._tenants: dict[str, TenantState] = {}
        self._wake = asyncio.Event()
        #: For waits that only a deadline ends.
        self._never = asyncio.Event()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._services: list[asyncio.Task[Any]] = []
        self._unwatch_sandbox: Callable[[], None] | None = None

    def wake(self, tenant_id: str) -> None:
        """A tenant's rules or actions changed: look again now."""
        state = self._tenants.get(tenant_id)
        if state is not None:
            state.changes += 1
            if state.loop_task is not None:
                state.is_changed = True
                state.wake.set()
        self._wake.set()

    async def start(self) -> None:
        from engine.housekeeping import housekeeping_loops

        self._services = [asyncio.create_task(self._dispatch(), name="cadenza-dispatcher")]
        self._services.append(asyncio.create_task(self._completer.run(), name="cadenza-completer"))
        self._services += [asyncio.create_task(c) for c in housekeeping_loops(self)]
        self._unwatch_sandbox = metrics.watch_sandbox(self.deps.sandbox)

    async def stop(self) -> None:
        for task in [*self._services, *self._tasks]:
            task.cancel()
        for task in [*self._services, *self._tasks]:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._services.clear()
        try:
            async with self.deps.write() as conn:
                await nodes.release(conn, self.deps.config.node_name)
                await nodes.forget_node(conn, self.deps.config.node_name)
        except Exception:  # the leases then expire on their own; nothing is lost
            log.exception("could not release this node's leases on stop")
        metrics.ACTIVE_TENANTS.set(0)
        if self._unwatch_sandbox is not None:
            self._unwatch_sandbox()
            self._unwatch_sandbox = None

    def _spawn(self, coro: Coroutine[Any, Any, Any], name: str) -> asyncio.Task[Any]:
        task = asyncio.create_task(coro, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def _dispatch(self) -> None:
        while True:
            try:
                await self._dispatch_until_failure()
            except Exception:
                log.exception("dispatcher failed; retrying in %.1f s", self.deps.config.wake_cap_s)
                await asyncio.sleep(self.deps.config.wake_cap_s)

    async def _dispatch_until_failure(self) -> None:
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
            lead = min(LEAD, timedelta(seconds=config.wake_cap_s / 2))
            soon = now + lead
            due = [t for t, at in rows if at <= soon]
            started = [await self._activate(t) for t in dict.fromkeys(due)]
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
        state.loop_task = self._spawn(self._run_tenant(state), f"cadenza-tenant-{tenant_id}")
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
            await tenant_loop(self, state)
        except Exception:
            log.exception(
                "tenant loop of %s failed; it restarts when work is due",
                state.tenant_id,
                extra={"tenant_id": state.tenant_id},
            )
            await asyncio.sleep(self.deps.config.wake_cap_s)  # no hot loop on a lasting failure
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

    async def _until_due(self, due_at: datetime) -> None:
        """A run claimed ahead (see `engine.tenant_loop.CLAIM_AHEAD`) starts at its due time."""
        clock, cap_s = self.deps.clock, self.deps.config.wake_cap_s
        while clock.now() < due_at:
            await clock.sleep_until(due_at, self._never, cap_s)

    async def _still_claimed(self, state: TenantState, claimed: Claimed, seen: int) -> bool:
        """Whether a run may start: unless the tenant changed in this process since the claim
        (`seen` changes then), yes; otherwise only if the change left the claim alone (an edit
        or pause revokes a claim taken ahead of its due time)."""
        if state.changes == seen:
            return True
        async with self.deps.db.connect() as conn:
            return await queue.is_claimed(conn, claimed.action["id"], claimed.version)

    @staticmethod
    def _ended(state: TenantState, claimed: Claimed) -> None:
        """The run ended: its place in the claim window is free while it is recorded."""
        state.recording.add(claimed.action["id"])
        if state.is_waiting_for_room and state.has_room_to_refill:
            state.wake.set()

    def in_flight_ids(self) -> list[int]:
        """Actions this node claimed and has not recorded yet."""
        return [i for state in self._tenants.values() for i in state.in_flight]

    def start_run(self, state: TenantState, claimed: Claimed) -> None:
        state.in_flight[claimed.action["id"]] = claimed
        metrics.IN_FLIGHT.inc()
        run = self._run(state, claimed, state.changes)
        self._spawn(run, f"cadenza-run-{claimed.action['id']}")

    async def _run(self, state: TenantState, claimed: Claimed, seen: int) -> None:
        try:
            await self._until_due(claimed.action["due_at"])
            if not await self._still_claimed(state, claimed, seen):
                return
            async with state.slots, self._slots:
                completion = await execute(self._env, claimed, state.profile)
            self._ended(state, claimed)
            committed = await self._completer.submit(completion)
            if committed:
                state.count_run(completion.run["started_at"].date(), completion.cpu_ms)
        except Exception:
            log.exception(
                "run of action %s was not recorded; its lease will expire",
                claimed.action["id"],
                extra=action_ids(claimed.action),
            )
        finally:
            if state.in_flight.get(claimed.action["id"]) is claimed:
                del state.in_flight[claimed.action["id"]]
                state.recording.discard(claimed.action["id"])
            metrics.IN_FLIGHT.dec()
            if claimed.action["rule_id"] in state.deferred:
                state.deferred.discard(claimed.action["rule_id"])
                state.is_changed = True
                state.wake.set()
            elif state.is_waiting_for_room and state.has_room_to_refill:
                state.wake.set()
            if state.loop_task is None:
                self._forget_if_idle(state)
                self._wake.set()
