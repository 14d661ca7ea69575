"""Failed and recovered notices: each rule's failing streak, advanced by its final outcomes in
the transaction that records them, so a streak's notice is stored exactly once, with the
outcome that caused it (a node killed before that commit leaves neither).

A retry that will run again is not a final outcome: the streak moves only on an action's end.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.engine import RowMapping
from sqlalchemy.ext.asyncio import AsyncConnection

from engine.domain.notifications import (
    Notice,
    NotificationEvent,
    Streak,
    next_streak,
    streak_event,
)
from engine.store import notification_outbox as outbox
from engine.store import runs as run_store
from engine.store.rows import NewRun

#: The longest error a notice carries (the run's record keeps all of it).
ERROR_CHARS = 1000


@dataclass(frozen=True)
class FinalOutcome:
    """An action of a rule that ended for good with this run."""

    run: NewRun
    succeeded: bool
    scheduled_at: datetime
    rule_name: str | None = None

    @property
    def rule_id(self) -> str:
        return self.run.rule_id or ""


async def notify_outcomes(conn: AsyncConnection, finals: Sequence[FinalOutcome]) -> None:
    """Advance the streaks of the finals' rules (in the order the runs ended) and store the
    notices they call for (the caller owns the transaction)."""
    if not finals:
        return
    failing = {f.rule_id for f in finals if not f.succeeded}
    streaks = await outbox.lock_streaks(conn, {f.rule_id for f in finals}, failing)
    if not failing and not any(s.failing for s in streaks.values()):
        return  # successes of rules in no failing streak: nothing changes, nothing to tell
    routes = await outbox.routes_of(conn, {f.run.tenant_id for f in finals})
    changed, due = _advance(finals, streaks, routes)
    await outbox.save_streaks(conn, changed)
    if due:
        run_ids = await run_store.ids_by_attempt(conn, {f.run.action_id for f, _ in due})
        notices = [_notice(f, e, run_ids.get((f.run.action_id, f.run.attempt))) for f, e in due]
        await outbox.insert_notices(conn, notices, routes)


def _advance(
    finals: Sequence[FinalOutcome], streaks: dict[str, Streak], routes: Sequence[RowMapping]
) -> tuple[dict[str, Streak], list[tuple[FinalOutcome, NotificationEvent]]]:
    """The streaks that changed, and the notices due with a route that asks for them."""
    changed: dict[str, Streak] = {}
    due = []
    for final in sorted(finals, key=lambda f: f.run.finished_at):
        streak = changed.get(final.rule_id, streaks.get(final.rule_id, Streak()))
        event = streak_event(streak, final.succeeded)
        notice = None if event is None else _notice(final, event)
        routed = notice is not None and any(outbox.route_matches(r, notice) for r in routes)
        due += [(final, notice.event)] if notice is not None and routed else []
        if (new := next_streak(streak, final.succeeded, routed)) != streak:
            changed[final.rule_id] = new
    return changed, due


def _notice(final: FinalOutcome, event: NotificationEvent, run_id: int | None = None) -> Notice:
    run = final.run
    return Notice(
        run.tenant_id, event, run.rule_id, run.finished_at, _payload(final), run.action_id, run_id
    )


def _payload(final: FinalOutcome) -> dict[str, Any]:
    return {
        "rule_name": final.rule_name,
        "scheduled_at": final.scheduled_at.isoformat(),
        "attempt": final.run.attempt,
        "outcome": final.run.outcome,
        "error": (final.run.error or "")[:ERROR_CHARS] or None,
    }
