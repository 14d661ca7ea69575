"""A tenant's timer loop: runs while the tenant has due (or nearly due) work, then exits.

    read the tenant's due pending actions (priority first, up to a batch), else its next few
    none, or the next is further than the wake cap: exit (the dispatcher comes back for it)
    sleep until exactly the first one's due time (capped; a change wakes it and it re-reads)
    decide → claim/skip/expire + chain next, in one transaction → start the runs
    no room (the tenant's claim window is full): wait until half of it is free

The loop wakes `CLAIM_AHEAD` before the first due time and claims what is due by then, and
each claimed run waits for its own due time before it starts: the claim transaction (which
may queue behind another for SQLite's one writer) is then out of the way at the due time
instead of between it and the run. At 200 actions/s a claim waited for the write lock up to
12-32 ms (p99; completions hold it too), so the window is wider than one transaction. A claim
also takes what else comes due within `BATCH_AHEAD` (250 ms) after: under a steady load that
is a claim transaction per few actions instead of one per action (at 200/s, three alternated
pairs: engine CPU per action 3.3-3.9 -> 2.5-2.6 ms, lateness p99 4.8-31 -> 1.8-2.5 ms). An
edit, pause, cancel or key update committed before the run starts still reaches the claimed
action: it revokes the claim (`engine.store.actions.update_unstarted`), and the run either
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
from typing import TYPE_CHECKING

from engine import claiming
from engine.due import DueAction
from engine.store import queue
from engine.tenant_state import TenantState

if TYPE_CHECKING:
    from engine.node import Node

#: Actions read ahead while waiting for the first of them.
READ_AHEAD = 16
#: How long before its due time an action may be claimed (its run still starts on time).
CLAIM_AHEAD = timedelta(milliseconds=25)
#: When the loop claims, it also takes what else is due within this much more, so a steady
#: stream costs a claim transaction per few actions rather than per action.
BATCH_AHEAD = timedelta(milliseconds=250)


async def _read(node: Node, state: TenantState, due_by: datetime, room: int) -> Sequence[DueAction]:
    """The tenant's actions due by `due_by` (a batch, priority first), else its next few."""
    async with node.deps.db.connect() as conn:
        batch = node.deps.config.batch_size
        rows = await queue.fetch_due(conn, state.tenant_id, due_by, batch, state.deferred)
        if rows:
            return rows
        return await queue.fetch_upcoming(
            conn, state.tenant_id, min(room, READ_AHEAD), state.deferred
        )


async def _overtaking(node: Node, state: TenantState, now: datetime) -> list[DueAction]:
    """With the claim window full: the due actions of a higher priority than any claimed run
    still waiting to start, up to the overtaking room, so that a higher-priority action never
    waits for a window of lower-priority ones claimed ahead of it."""
    floor = state.lowest_waiting_priority()
    room = state.overtaking_room
    if floor is None or room == 0:
        return []
    async with node.deps.db.connect() as conn:
        rows = await queue.fetch_due(conn, state.tenant_id, now + CLAIM_AHEAD, room, state.deferred)
    return [r for r in rows if r.priority > floor]


def claimable(
    rows: Sequence[DueAction], state: TenantState, now: datetime, room: int
) -> list[DueAction]:
    """Up to `room` of `rows` to claim now: those due within `CLAIM_AHEAD` (none: nothing),
    and with them those due within `BATCH_AHEAD` after, except an action of a rule that has a
    run in flight or another action in the batch: its overlap policy is decided as close to
    its due time as it can be."""
    soon = now + CLAIM_AHEAD
    due = [r for r in rows if r.due_at <= soon]
    if not due:
        return []
    rules = {r.rule_id for r in due if r.rule_id is not None}
    for row in rows:
        rule_id = row.rule_id
        if not soon < row.due_at <= soon + BATCH_AHEAD:
            continue
        if rule_id is not None and (rule_id in rules or state.busy_since(rule_id)):
            continue
        due.append(row)
        if rule_id is not None:
            rules.add(rule_id)
    return due[:room]


async def tenant_loop(node: Node, state: TenantState) -> None:
    """Drain the tenant's due work; return when nothing is due within the wake cap."""
    deps = node.deps
    cap = timedelta(seconds=deps.config.wake_cap_s)
    rows: Sequence[DueAction] = ()
    read_at = deps.clock.now()
    while True:
        changed = state.is_changed
        if changed:
            state.is_changed, rows = False, ()
        room = min(deps.config.batch_size, state.claim_room)
        now = deps.clock.now()
        due = claimable(rows, state, now, room)
        if not due and room == 0:
            state.wake.clear()
            due = await _overtaking(node, state, now) if changed else []
            if not due:
                state.is_waiting_for_room = True
                await deps.clock.sleep_until(None, state.wake, cap.total_seconds())
                state.is_waiting_for_room = False
                if deps.clock.now() - read_at > cap:  # other nodes may have changed the queue
                    state.is_changed, read_at = True, deps.clock.now()
                continue
        elif not due:
            state.wake.clear()
            if not rows:
                state.forget_finished_deferrals()
                rows, read_at = await _read(node, state, now + CLAIM_AHEAD + BATCH_AHEAD, room), now
                due = claimable(rows, state, now, room)
        if not due:
            first = min((r.due_at for r in rows), default=None)
            if not state.deferred and (first is None or first - now > cap):
                return
            wake_at = None if first is None else first - CLAIM_AHEAD
            await deps.clock.sleep_until(wake_at, state.wake, cap.total_seconds())
            if state.wake.is_set() or wake_at is None or deps.clock.now() < wake_at:
                rows = ()  # a change, or the cap (another node may have added work): re-read
            continue
        taken = {r.id for r in due}
        rows = [r for r in rows if r.id not in taken]
        decided = claiming.decide_all(due, state, now, deps.config)
        async with deps.write() as conn:
            step = await claiming.apply(conn, decided, state, now, deps.config)
        state.deferred |= step.deferred
        if step.planned or step.deferred:
            rows = ()  # new occurrences may come before what was read ahead
        for claimed in step.claimed:
            node.start_run(state, claimed)
