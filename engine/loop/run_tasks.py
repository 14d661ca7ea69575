"""The runs this node claimed, from claim to record: each waits for its due time and a run slot
(`engine.loop.run_slots`), runs in the sandbox, and goes to the completer; on a stop, the runs that
have not started are given back and the ones that have are drained (`engine.loop.stopping`).

A run's place in its tenant's claim window is freed when it ends, before it is recorded
(`TenantState.claim_room`); its kv writes stay visible to the tenant's next runs until they
are recorded (`engine.runs.unrecorded`). When a run starts, the completer also writes the start
down (`actions.started_at`), so that a node that dies is known to have started only those.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from engine.deps import Deps
from engine.domain.changes import Change, Wake
from engine.loop.run_slots import RunSlots
from engine.loop.tenant_state import TenantState
from engine.ops import metrics
from engine.ops.logs import action_ids
from engine.runs.commit import Completion, Recorded
from engine.runs.recorder import Completer
from engine.runs.runner import Claimed, RunEnv, execute
from engine.store import loop_statements as queue

log = logging.getLogger("cadenza.engine")


@dataclass
class RunTasks:
    deps: Deps
    completer: Completer
    slots: RunSlots
    #: Called when a run of a tenant whose loop is not running settled (the node may forget
    #: the tenant's state, and looks at the queue again).
    settled: Callable[[TenantState], None]
    #: Called with a tenant id whose work must be looked at again now (a run to do again).
    wake: Wake
    tasks: dict[int, asyncio.Task[None]] = field(default_factory=dict)
    #: Every claimed run not recorded yet, by action id, with its tenant.
    claimed: dict[int, tuple[TenantState, Claimed]] = field(default_factory=dict)
    #: Of those, the ids of the runs that have started.
    started: set[int] = field(default_factory=set)
    env: RunEnv = field(init=False)

    def __post_init__(self) -> None:
        deps = self.deps
        config = deps.config
        self.env = RunEnv(
            deps.sandbox,
            deps.db,
            deps.clock,
            config.node_name,
            deps.secrets,
            config.http,
            deps.capabilities,
        )

    def start(self, state: TenantState, claimed: Claimed) -> None:
        action_id = claimed.action.id
        state.in_flight[action_id] = claimed
        self.claimed[action_id] = (state, claimed)
        metrics.IN_FLIGHT.inc()
        task = asyncio.create_task(self._run(state, claimed), name=f"cadenza-run-{action_id}")
        self.tasks[action_id] = task
        task.add_done_callback(functools.partial(self._done, action_id))

    def _done(self, action_id: int, task: asyncio.Task[None]) -> None:
        if self.tasks.get(action_id) is task:
            del self.tasks[action_id]

    def task_of(self, claimed: Claimed) -> asyncio.Task[None] | None:
        return self.tasks.get(claimed.action.id)

    def unstarted(self) -> list[Claimed]:
        """Claimed runs still waiting for their due time or a slot."""
        return [c for i, (_, c) in self.claimed.items() if i not in self.started]

    async def _run(self, state: TenantState, claimed: Claimed) -> None:
        seen = state.changes
        try:
            await self._until_due(claimed)
            quota = state.profile.quotas.max_concurrency
            await self.slots.acquire(state.tenant_id, quota, claimed.action.priority)
            try:
                if not await self._still_claimed(state, claimed, seen):
                    return
                completion = await self._execute(state, claimed)
                self._ended(state, claimed, completion)  # before the slot goes to a next run
            finally:
                self.slots.release(state.tenant_id)
            recorded = await self.completer.submit(completion)
            if recorded is Recorded.COMMITTED:
                state.count_run(completion.run.started_at.date(), completion.cpu_ms)
            elif recorded is not Recorded.LOST:
                self.wake(state.tenant_id, Change.ADDED)  # it runs again, maybe at once
        except Exception:
            log.exception(
                "run of action %s was not recorded; its lease will expire",
                claimed.action.id,
                extra=action_ids(claimed.action),
            )
        finally:
            self._forget(state, claimed)

    async def _execute(self, state: TenantState, claimed: Claimed) -> Completion:
        action_id = claimed.action.id
        self.started.add(action_id)
        self.completer.mark_started(action_id, claimed.version, self.deps.clock.now())
        return await execute(self.env, claimed, state.profile, state.unrecorded)

    async def _until_due(self, claimed: Claimed) -> None:
        """A run claimed ahead (`engine.loop.claim_lead`) starts at its due time."""
        clock, cap_s = self.deps.clock, self.deps.config.wake_cap_s
        never = asyncio.Event()
        while clock.now() < claimed.action.due_at:
            await clock.sleep_until(claimed.action.due_at, never, cap_s)

    async def _still_claimed(self, state: TenantState, claimed: Claimed, seen: int) -> bool:
        """Whether a run may start: unless the tenant changed in this process since the claim
        (`seen` changes then), yes; otherwise only if the change left the claim alone (an edit
        or pause revokes a claim taken ahead of its due time)."""
        if state.changes == seen:
            return True
        async with self.deps.db.connect() as conn:
            return await queue.is_claimed(conn, claimed.action.id, claimed.version)

    @staticmethod
    def _ended(state: TenantState, claimed: Claimed, completion: Completion) -> None:
        """The run ended: its place in the claim window is free while it is recorded, its
        rule's next run may start (`TenantState.busy_rules`), and its kv writes are what the
        tenant's next runs read until then."""
        action_id = claimed.action.id
        state.recording.add(action_id)
        if completion.kv is not None:
            state.unrecorded.add(action_id, completion.kv.writes)
        state.rule_run_over(claimed.action.rule_id)

    def _forget(self, state: TenantState, claimed: Claimed) -> None:
        action_id = claimed.action.id
        if self.claimed.get(action_id, (state, None))[1] is claimed:
            del self.claimed[action_id]
            self.started.discard(action_id)
        state.unrecorded.discard(action_id)
        if state.in_flight.get(action_id) is claimed:
            del state.in_flight[action_id]
            state.recording.discard(action_id)
        metrics.IN_FLIGHT.dec()
        state.rule_run_over(claimed.action.rule_id)
        if state.loop_task is None:
            self.settled(state)
