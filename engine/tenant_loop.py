"""A tenant's timer loop: runs while the tenant has due (or nearly due) work, then exits.

oldest = the tenant's due pending actions (priority first, then due time)
none due: sleep until the next due time if it is near (capped), else exit
decide → claim/skip/expire + chain next, in one transaction → start runs
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import TYPE_CHECKING

from engine import claiming
from engine.store import queue
from engine.tenant_state import TenantState

if TYPE_CHECKING:
    from engine.node import Node

log = logging.getLogger("cadenza.engine")


async def tenant_loop(node: Node, state: TenantState) -> None:
    """Drain the tenant's due work; return when nothing is due within the wake cap."""
    deps = node.deps
    cap_s = deps.config.wake_cap_s
    while True:
        state.wake.clear()
        room = min(deps.config.batch_size, state.claim_room)
        if room == 0:
            await deps.clock.sleep_until(None, state.wake, cap_s)
            continue
        now = deps.clock.now()
        async with deps.db.connect() as conn:
            rows = await queue.fetch_due(conn, state.tenant_id, now, room, state.deferred)
            next_at = (
                None if rows else await queue.next_due_at(conn, state.tenant_id, state.deferred)
            )
        if not rows:
            if not state.deferred and (next_at is None or next_at - now > timedelta(seconds=cap_s)):
                return
            await deps.clock.sleep_until(next_at, state.wake, cap_s)
            continue
        decided = claiming.decide_all(rows, state, now, deps.config)
        async with deps.db.begin() as conn:
            step = await claiming.apply(conn, decided, state, now, deps.config)
        state.deferred |= step.deferred
        for claimed in step.claimed:
            node.start_run(state, claimed)
        if not step.claimed and not step.finished:
            await deps.clock.sleep_until(None, state.wake, cap_s)
