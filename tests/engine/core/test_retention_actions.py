"""Retention of finished actions: each goes with the retention of its outcome, only once its
runs are gone, and pending or running actions are never purged however old."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncEngine

from engine.clock import ManualClock
from engine.config import EngineConfig
from engine.deps import Deps
from engine.ops.retention import purge_history
from engine.store.tables import actions, runs
from sandbox import Sandbox

#: name -> (status, age in days of finished_at, outcome of its one run or None)
CASES = {
    "succeeded-old": ("succeeded", 40, None),  # past the ok retention: purged
    "succeeded-new": ("succeeded", 10, None),  # within it: kept
    "skipped-old": ("skipped", 40, None),  # skipped goes with the successes
    "cancelled-old": ("cancelled", 40, None),  # so does cancelled
    "failed-mid": ("failed", 40, None),  # failures are kept for the failed retention
    "expired-mid": ("expired", 40, None),  # so are expired actions
    "failed-old": ("failed", 100, None),  # past the failed retention: purged
    "expired-old": ("expired", 100, None),
    "succeeded-ok-run": ("succeeded", 40, "ok"),  # its run goes first, then the action
    "succeeded-error-run": ("succeeded", 40, "error"),  # a failed attempt keeps it
    "pending-old": ("pending", 100, None),  # never purged
    "running-old": ("running", 100, None),  # never purged
}
KEPT = {"succeeded-new", "failed-mid", "expired-mid", "succeeded-error-run"}
KEPT |= {"pending-old", "running-old"}


async def _seed(db: AsyncEngine, tenant_id: str, clock: ManualClock) -> None:
    async with db.begin() as conn:
        for name, (status, days, outcome) in CASES.items():
            at = clock.now() - timedelta(days=days)
            action_id = (
                await conn.execute(
                    actions.insert().values(
                        tenant_id=tenant_id, key=name, runtime="python", code="",
                        scheduled_at=at, due_at=at, status=status, created_at=at,
                        finished_at=at,
                    )
                )
            ).inserted_primary_key[0]  # fmt: skip
            if outcome is not None:
                await conn.execute(
                    runs.insert().values(
                        tenant_id=tenant_id, action_id=action_id, attempt=1, node="n",
                        runtime="python", planned_at=at, started_at=at, finished_at=at,
                        outcome=outcome, duration_ms=1.0, lateness_ms=0.0,
                    )
                )  # fmt: skip


async def test_finished_actions_go_with_their_outcome_and_runs(
    db: AsyncEngine, sandbox: Sandbox, tenant_id: str, clock: ManualClock
) -> None:
    await _seed(db, tenant_id, clock)
    config = EngineConfig(retention_ok_days=30, retention_failed_days=90, retention_batch=2)
    deps = Deps(db, sandbox, config, clock, lambda _: None)
    removed = await purge_history(deps, clock.now())
    async with db.connect() as conn:
        left = {row.key for row in await conn.execute(select(actions.c.key))}
        run_outcomes = [row.outcome for row in await conn.execute(select(runs.c.outcome))]
    assert left == KEPT
    assert run_outcomes == ["error"]
    assert removed == len(CASES) - len(KEPT) + 1  # the actions and the one ok run
    assert await purge_history(deps, clock.now()) == 0
