"""`TenantLoop`, a tenant's timer loop: runs while the tenant has due (or nearly due) work,
then exits (its supervisor starts it again when work comes due).

    read the tenant's due pending actions (priority first, up to a batch), else its next few
    none, or the next is further than the wake cap: exit (the dispatcher comes back for it)
    sleep until exactly the first one's due time (capped; a change wakes it and it re-reads)
    decide → claim/skip/expire + chain next, in one transaction → start the runs
    no room (the tenant's claim window is full): wait until half of it is free

The loop wakes a lead before the first due time (`engine.loop.claim_lead`: at least
`CLAIM_AHEAD`, more while claims are slow) and claims what is due by then, and each claimed
run waits for its own due time before it starts: the claim transaction (which may queue
behind another for SQLite's one writer) is then out of the way at the due time instead of
between it and the run. An action whose rule has a run in flight is claimed only
`CLAIM_AHEAD` before it is due, however long the lead: its overlap policy is decided as close
to its due time as it can be. A claim also takes what else comes due within `BATCH_AHEAD`
after: under a steady load that is a claim transaction per few actions instead of one per
action (measured in docs/performance.md). An edit, pause, cancel or key update committed
before the run starts still reaches the claimed action: it revokes the claim
(`engine.store.actions.update_unstarted`), and the run either
does not start (the change was made in this process) or commits none of its effects.

Actions read ahead are claimed as read (same id and version), so waking at the due time
costs one transaction, not a read and a transaction; a backlog is read once per batch and
claimed half a window at a time, not read and claimed once per finished run. What was read
ahead is read again after a change made in this process or after the wake cap (changes made
by other nodes).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from engine.deps import Deps
from engine.domain.due import DueAction
from engine.loop import claiming
from engine.loop.claim_batches import ClaimBatches
from engine.loop.claim_lead import CLAIM_AHEAD, ClaimLead
from engine.loop.tenant_state import TenantState
from engine.store import loop_statements as queue

#: Actions read ahead while waiting for the first of them.
READ_AHEAD = 16
#: When the loop claims, it also takes what else is due within this much more, so a steady
#: stream costs a claim transaction per few actions rather than per action.
BATCH_AHEAD = timedelta(milliseconds=250)


def lead_of(row: DueAction, busy: set[str], lead: timedelta) -> timedelta:
    """How long before its due time `row` may be claimed: `lead`, or only `CLAIM_AHEAD` if
    its rule is one of the `busy` ones, with a run in flight (which may end before the due
    time)."""
    return CLAIM_AHEAD if row.rule_id in busy else lead


def claimable(
    rows: Sequence[DueAction],
    state: TenantState,
    now: datetime,
    room: int,
    lead: timedelta = CLAIM_AHEAD,
) -> list[DueAction]:
    """Up to `room` of `rows` to claim now: those due within their lead (`lead_of`; none:
    nothing), and with them those due within `BATCH_AHEAD` after `lead`, except an action of
    a rule that has a run in flight or another action in the batch: its overlap policy is
    decided as close to its due time as it can be."""
    if not rows:
        return []
    busy = state.busy_rules()
    due = [r for r in rows if r.due_at <= now + lead_of(r, busy, lead)]
    if not due:
        return []
    soon = now + lead
    rules = {r.rule_id for r in due if r.rule_id is not None}
    for row in rows:
        rule_id = row.rule_id
        if not soon < row.due_at <= soon + BATCH_AHEAD:
            continue
        if rule_id is not None and (rule_id in rules or rule_id in busy):
            continue
        due.append(row)
        if rule_id is not None:
            rules.add(rule_id)
    return due[:room]


class TenantLoop:
    """One tenant's loop: sleep until the first action is due (or a change wakes it), claim
    what is due, start the runs. Runs end and are recorded elsewhere (`engine.loop.run_tasks`);
    they free room in the tenant's claim window, which wakes the loop if it waits for room."""

    def __init__(
        self,
        deps: Deps,
        state: TenantState,
        claims: ClaimBatches,
        lead: ClaimLead,
    ) -> None:
        self.deps = deps
        self.state = state
        self._claims = claims
        self._lead = lead
        self._cap = timedelta(seconds=deps.config.wake_cap_s)
        #: Read ahead, not claimed yet; re-read after a change.
        self._rows: Sequence[DueAction] = ()
        self._read_at = deps.clock.now()
        #: The wake cap passed while waiting for room: other nodes may have changed the queue.
        self._is_reread_due = False

    async def run(self) -> None:
        """Drain the tenant's due work; return when nothing is due within the wake cap."""
        while True:
            changed = self.state.take_change() or self._take_reread()
            if changed:
                self._rows = ()
            room = min(self.deps.config.batch_size, self.state.claim_room)
            now = self.deps.clock.now()
            due = claimable(self._rows, self.state, now, room, self._lead.value)
            if not due and room == 0:
                self.state.clear_wake()
                due = await self._overtaking(now) if changed else []
                if not due:
                    await self._wait_for_room()
                    continue
            elif not due:
                due = await self._read_if_needed(now, room)
            if not due:
                if not await self._sleep_until_first(now):
                    return
                continue
            await self._claim(due, now)

    def _take_reread(self) -> bool:
        reread, self._is_reread_due = self._is_reread_due, False
        return reread

    async def _wait_for_room(self) -> None:
        await self.state.wait_for_room(self.deps.clock, self._cap.total_seconds())
        if self.deps.clock.now() - self._read_at > self._cap:
            self._is_reread_due, self._read_at = True, self.deps.clock.now()

    async def _read_if_needed(self, now: datetime, room: int) -> list[DueAction]:
        """Nothing read ahead is due: read again if nothing is read ahead at all."""
        self.state.clear_wake()
        if self._rows:
            return []
        self.state.forget_finished_deferrals()
        lead = self._lead.value
        self._rows, self._read_at = await self._read(now + lead + BATCH_AHEAD, room), now
        return claimable(self._rows, self.state, now, room, lead)

    async def _sleep_until_first(self, now: datetime) -> bool:
        """Sleep until the first action read ahead is nearly due; False when there is none
        within the wake cap (the loop ends)."""
        first = min((r.due_at for r in self._rows), default=None)
        if not self.state.deferred and (first is None or first - now > self._cap):
            return False
        busy, lead = self.state.busy_rules(), self._lead.value
        wake_at = min((r.due_at - lead_of(r, busy, lead) for r in self._rows), default=None)
        await self.state.sleep(self.deps.clock, wake_at, self._cap.total_seconds())
        if self.state.is_woken or wake_at is None or self.deps.clock.now() < wake_at:
            self._rows = ()  # a change, or the cap (another node may have added work): re-read
        return True

    async def _claim(self, due: Sequence[DueAction], now: datetime) -> None:
        """Decide, then claim and plan in one transaction (`ClaimBatches`, which starts the
        runs claimed)."""
        taken = {r.id for r in due}
        self._rows = [r for r in self._rows if r.id not in taken]
        decided = claiming.decide_all(due, self.state, now, self.deps.config)
        step = await self._claims.claim(decided, self.state, now)
        self._lead.note(self.deps.clock.now() - now)
        if step.planned or step.deferred:
            self._rows = ()  # new occurrences may come before what was read ahead

    async def _read(self, due_by: datetime, room: int) -> Sequence[DueAction]:
        """The tenant's actions due by `due_by` (a batch, priority first), else its next few."""
        state = self.state
        async with self.deps.db.connect() as conn:
            batch = self.deps.config.batch_size
            rows = await queue.fetch_due(conn, state.tenant_id, due_by, batch, state.deferred)
            if rows:
                return rows
            return await queue.fetch_upcoming(
                conn, state.tenant_id, min(room, READ_AHEAD), state.deferred
            )

    async def _overtaking(self, now: datetime) -> list[DueAction]:
        """With the claim window full: the due actions of a higher priority than any claimed
        run still waiting to start, up to the overtaking room, so that a higher-priority action
        never waits for a window of lower-priority ones claimed ahead of it."""
        state = self.state
        floor = state.lowest_waiting_priority()
        room = state.overtaking_room
        if floor is None or room == 0:
            return []
        lead = self._lead.value
        async with self.deps.db.connect() as conn:
            rows = await queue.fetch_due(conn, state.tenant_id, now + lead, room, state.deferred)
        busy = state.busy_rules()
        return [r for r in rows if r.priority > floor and r.due_at <= now + lead_of(r, busy, lead)]
