"""The step after an action is claimed or finished before it ran: its rule's chain goes on.

The store reads the rules as they are now, the domain (`occurrences.plan_chain`) decides the
next occurrence and its DST gap traces, and the store writes them, all in the caller's
transaction.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncConnection

from engine.domain.due import DueAction, Planned, RuleSnapshot
from engine.domain.occurrences import plan_chain
from engine.store import actions as action_store
from engine.store import loop_statements as queue


async def continue_chains(
    conn: AsyncConnection,
    finished: Sequence[DueAction],
    now: datetime,
    horizon_years: int,
    *,
    after: Mapping[int, tuple[datetime, bool]] | None = None,
    traces: Sequence[Planned] = (),
    live: Mapping[str, RuleSnapshot] | None = None,
) -> list[Planned]:
    """Plan and write what follows `finished` (with `traces` of the caller's, in the same
    statement); the plans written."""
    if live is None:
        live = await queue.live_rules(conn, finished)
    plans = [*traces, *plan_chain(finished, live, horizon_years, after)]
    await action_store.insert_planned(conn, plans, now)
    return plans
