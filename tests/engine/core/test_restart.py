"""kill -9 and restart, with real processes: a node comes back under its own name and takes
back at once what its previous incarnation had claimed. The run it lost is recorded with the
time it really started and retried at once, an every-second rule resumes within seconds of
readiness (nothing skipped by misfire after it), and the rule's overlap policy holds across
the crash: its counter counts every committed run, and no two of its runs overlap."""

from __future__ import annotations

import itertools
import os
import signal
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncEngine
from stored import kv_value
from support.processes import kill_tree, running_server
from support.waiting import eventually
from workers import start_worker, stop

from engine.config import EngineConfig
from engine.domain.records import OverlapPolicy, RuleSpec
from engine.service import EngineService
from engine.store.tables import actions, runs
from sandbox import Sandbox
from tenants.registry import create_tenant, update_tenant

#: Reads, waits, writes back: two overlapping runs would lose an increment.
SLOW_COUNTER = """
import time
def main(ctx):
    n = ctx.kv.get('count', 0)
    time.sleep(0.6)
    ctx.kv.set('count', n + 1)
"""
QUICK = "def main(ctx):\n    return 1\n"
LONG = "import time\ndef main(ctx):\n    time.sleep(3)\n"


async def _tenant(db: AsyncEngine) -> str:
    async with db.begin() as conn:
        tenant, _ = await create_tenant(conn, "acme")
        await update_tenant(conn, tenant.id, quotas={"min_interval_s": 1, "allow_secondly": True})
    return tenant.id


async def _scalar(db: AsyncEngine, query: object) -> object:
    async with db.connect() as conn:
        return (await conn.execute(query)).scalar()  # type: ignore[call-overload]


async def _count(db: AsyncEngine, query: object) -> int:
    return int(await _scalar(db, select(func.count()).select_from(query.subquery())))  # type: ignore[attr-defined]


async def _started_and_running(db: AsyncEngine, rule_id: str, ok_runs: int) -> bool:
    """At least `ok_runs` done, and one more whose start the node has written down."""
    done = select(runs.c.id).where(runs.c.rule_id == rule_id, runs.c.outcome == "ok")
    going = select(actions.c.id).where(
        actions.c.rule_id == rule_id,
        actions.c.status == "running",
        actions.c.started_at.is_not(None),
    )
    return await _count(db, done) >= ok_runs and await _count(db, going) == 1


async def test_kill_9_mid_run_keeps_the_overlap_policy_and_the_count(
    db: AsyncEngine, database_url: str, sandbox: Sandbox, tmp_path: Path
) -> None:
    tenant_id = await _tenant(db)
    spec = RuleSpec(
        name="c", schedule="every 1s", code=SLOW_COUNTER, overlap_policy=OverlapPolicy.SKIP
    )
    rule = await EngineService(db, sandbox, EngineConfig()).create_rule(tenant_id, spec)
    first = start_worker(database_url, "n1", tmp_path)
    try:
        await eventually(lambda: _started_and_running(db, rule.id, 3), timeout_s=60)
        killed_at = datetime.now(UTC)
        os.kill(first.pid, signal.SIGKILL)
        first.wait()
    finally:
        stop(first)
    second = start_worker(database_url, "n1", tmp_path)
    try:
        after = select(runs.c.id).where(runs.c.rule_id == rule.id, runs.c.started_at > killed_at)
        await eventually(lambda: _count(db, after.where(runs.c.outcome == "ok")), timeout_s=60)
        await eventually(
            lambda: _at_least(db, after.where(runs.c.outcome == "ok"), 4), timeout_s=60
        )
    finally:
        stop(second)
    async with db.connect() as conn:
        history = (
            (
                await conn.execute(
                    select(runs).where(runs.c.rule_id == rule.id).order_by(runs.c.started_at)
                )
            )
            .mappings()
            .all()
        )
    ok = [r for r in history if r["outcome"] == "ok" and r["committed"]]
    [lost] = [r for r in history if r["outcome"] == "crashed"]
    assert await kv_value(db, tenant_id, "count") == len(ok), "every committed run counted once"
    for earlier, later in itertools.pairwise(ok):
        assert earlier["finished_at"] <= later["started_at"], "two runs of the rule overlapped"
    assert lost["started_at"] < killed_at, "the lost attempt shows when it really started"
    assert "restarted" in lost["error"]
    retried = [r for r in history if r["action_id"] == lost["action_id"] and r["attempt"] == 2]
    assert retried, "the lost attempt's occurrence ran again"


async def _at_least(db: AsyncEngine, query: object, n: int) -> bool:
    return await _count(db, query) >= n


async def test_serve_killed_and_restarted_resumes_within_seconds(
    db: AsyncEngine, database_url: str, sandbox: Sandbox
) -> None:
    tenant_id = await _tenant(db)
    service = EngineService(db, sandbox, EngineConfig())
    rule = await service.create_rule(
        tenant_id, RuleSpec(name="tick", schedule="every 1s", code=QUICK)
    )
    with running_server(database_url, "--no-demo") as server:
        ticks = select(runs.c.id).where(runs.c.rule_id == rule.id)
        await eventually(lambda: _at_least(db, ticks, 2), timeout_s=60)
        await service.submit_action(tenant_id, run_at=datetime.now(UTC), key="long", code=LONG)
        long_started = select(actions.c.id).where(
            actions.c.key == "long", actions.c.started_at.is_not(None)
        )
        await eventually(lambda: _count(db, long_started), timeout_s=30)
        killed_at = datetime.now(UTC)
        kill_tree(server.process)
    with running_server(database_url, "--no-demo") as server:
        ready_at = await eventually(lambda: _ready(server.base_url), timeout_s=30)
        after = select(func.min(runs.c.started_at)).where(
            runs.c.rule_id == rule.id, runs.c.started_at > killed_at
        )
        first_run_at = await eventually(lambda: _scalar(db, after), timeout_s=30)
        await eventually(lambda: _long_done(db), timeout_s=30)
        await eventually(
            lambda: _at_least(db, ticks.where(runs.c.started_at > ready_at), 3), timeout_s=30
        )
    assert first_run_at - ready_at < timedelta(seconds=6), "the first due run waited past readiness"
    misfired = select(actions.c.id).where(
        actions.c.rule_id == rule.id,
        actions.c.reason == "misfire",
        actions.c.scheduled_at > ready_at,
    )
    assert await _count(db, misfired) == 0, "an occurrence due after readiness was skipped"
    async with db.connect() as conn:
        long_runs = (
            (
                await conn.execute(
                    select(runs)
                    .join(actions, actions.c.id == runs.c.action_id)
                    .where(actions.c.key == "long")
                    .order_by(runs.c.attempt)
                )
            )
            .mappings()
            .all()
        )
    assert [r["outcome"] for r in long_runs] == ["crashed", "ok"]
    assert long_runs[0]["started_at"] < killed_at, "the lost attempt shows its real start"
    assert long_runs[1]["started_at"] - ready_at < timedelta(seconds=6), (
        "retried at once, not after its lease"
    )


async def _ready(base_url: str) -> datetime | None:
    """The instant `/readyz` answers 200 (None before)."""
    async with httpx.AsyncClient(timeout=5) as client:
        try:
            answer = await client.get(f"{base_url}/readyz")
        except httpx.HTTPError:
            return None
    return datetime.now(UTC) if answer.status_code == 200 else None


async def _long_done(db: AsyncEngine) -> bool:
    return await _scalar(db, select(actions.c.status).where(actions.c.key == "long")) == "succeeded"
