"""SIGTERM, with real processes: a stop gives back every claim whose run has not started
(pending again, no attempt counted), lets started runs finish and records them, and only
interrupts what still runs when its grace period ends; a restart then records no attempt
that did not run. Actions allow a single attempt, so a counted phantom attempt would fail
them. The stop with hundreds of claims holds for `cadenza worker` and for `cadenza serve` (whose
supervisor passes the signal on to its engine process, which runs the worker's node code); the
grace and the re-planning cases run through `worker` only."""

from __future__ import annotations

import signal
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncEngine
from support.waiting import eventually
from workers import start_worker, stop

from bench.ours import one_off
from engine.clock import ManualClock
from engine.config import EngineConfig
from engine.domain.records import RuleSpec
from engine.service import EngineService
from engine.store.actions import insert_actions
from engine.store.tables import actions, runs
from sandbox import Sandbox
from tenants.registry import create_tenant

#: Two starts of a node, a stop and a drain each, on a busy machine (`serve` starts three
#: processes where `worker` starts one).
pytestmark = pytest.mark.timeout(420)
SCRIPT = "import time\ndef main(ctx):\n    time.sleep(ctx.params['sleep_s'])\n"
TENANTS = 3
PER_TENANT = 24
#: The stop is the subject here, not a takeover: leases long enough that a loaded machine
#: cannot let one lapse mid-drain (the workers' 2 s default would; the run's record is then
#: refused as lost and its action left `running` for a sweeper, which is another test's case).
LONG_LEASE = {"CADENZA_LEASE_S": "30", "CADENZA_LEASE_MARGIN_S": "10"}


def _worker(
    database_url: str, tmp_path: Path, command: str = "worker", **env: str
) -> subprocess.Popen[bytes]:
    """`command` (`worker` or `serve`) as node n1, with `LONG_LEASE` and the settings `env`
    adds."""
    return start_worker(database_url, "n1", tmp_path, command=command, **(LONG_LEASE | env))


async def _load(db: AsyncEngine, count: int, sleep_s: float, due_in_s: float) -> None:
    """`count` one-offs per tenant with a single attempt, due together."""
    now = datetime.now(UTC)
    due = now + timedelta(seconds=due_in_s)
    rows = []
    async with db.begin() as conn:
        for t in range(TENANTS if count > 1 else 1):
            tenant, _ = await create_tenant(conn, f"t{t}")
            rows += [one_off(tenant.id, SCRIPT, due, params={"sleep_s": sleep_s})] * count
        await insert_actions(conn, rows)


async def _count(db: AsyncEngine, query: object) -> int:
    async with db.connect() as conn:
        return int((await conn.execute(query)).scalar_one())  # type: ignore[call-overload]


def _actions(*where: object) -> object:
    return select(func.count()).select_from(actions).where(*where)  # type: ignore[arg-type]


async def _some_done_some_going(db: AsyncEngine) -> bool:
    done = await _count(db, _actions(actions.c.status == "succeeded"))
    going = await _count(db, _actions(actions.c.status == "running"))
    return done >= 10 and going >= 10


@pytest.fixture(params=["worker", "serve"])
def command(request: pytest.FixtureRequest) -> str:
    """The command whose engine is stopped."""
    return str(request.param)


def _terminate(worker: subprocess.Popen[bytes], timeout_s: float) -> int:
    worker.send_signal(signal.SIGTERM)
    return worker.wait(timeout=timeout_s)


async def test_sigterm_gives_back_unstarted_claims_and_drains_started_runs(
    db: AsyncEngine, database_url: str, tmp_path: Path, command: str
) -> None:
    await _load(db, PER_TENANT, sleep_s=0.3, due_in_s=3)
    worker = _worker(database_url, tmp_path, command, CADENZA_MAX_CONCURRENCY="6")
    try:
        await eventually(lambda: _some_done_some_going(db), timeout_s=60)
        assert _terminate(worker, timeout_s=40) == 0
    finally:
        stop(worker)
    total = TENANTS * PER_TENANT
    succeeded = await _count(db, _actions(actions.c.status == "succeeded"))
    given_back = await _count(db, _actions(actions.c.status == "pending", actions.c.attempt == 0))
    assert await _count(db, _actions(actions.c.status == "running")) == 0
    assert succeeded + given_back == total and given_back > 0, (succeeded, given_back)
    assert await _count(db, select(func.count()).select_from(runs)) == succeeded, "one run each"

    restarted = _worker(database_url, tmp_path, command, CADENZA_MAX_CONCURRENCY="6")
    try:
        await eventually(
            lambda: _at_least(db, _actions(actions.c.status == "succeeded"), total), timeout_s=120
        )
    finally:
        stop(restarted)
    assert await _count(db, _actions(actions.c.status != "succeeded")) == 0
    outcomes = select(runs.c.outcome, func.count()).group_by(runs.c.outcome)
    async with db.connect() as conn:
        assert dict((await conn.execute(outcomes)).all()) == {"ok": total}


async def _at_least(db: AsyncEngine, query: object, n: int) -> bool:
    return await _count(db, query) >= n


async def test_a_run_still_going_after_the_grace_is_interrupted_and_runs_again(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    await _load(db, 1, sleep_s=4, due_in_s=0)
    worker = _worker(database_url, tmp_path, CADENZA_STOP_GRACE_S="1")
    try:
        started = _actions(actions.c.started_at.is_not(None))
        await eventually(lambda: _count(db, started), timeout_s=60)
        stopping_at = datetime.now(UTC)
        assert _terminate(worker, timeout_s=20) == 0
    finally:
        stop(worker)
    async with db.connect() as conn:
        [action] = (await conn.execute(select(actions))).mappings().all()
        [run] = (await conn.execute(select(runs))).mappings().all()
    assert (run["outcome"], run["committed"]) == ("killed", False)
    assert (
        run["started_at"] < stopping_at < run["finished_at"] < stopping_at + timedelta(seconds=10)
    )
    assert "grace period" in run["error"]
    assert (action["status"], action["attempt"], action["max_attempts"]) == ("pending", 1, 2)

    restarted = _worker(database_url, tmp_path)
    try:
        await eventually(
            lambda: _count(db, _actions(actions.c.status == "succeeded")), timeout_s=60
        )
    finally:
        stop(restarted)
    outcomes = select(runs.c.outcome).order_by(runs.c.attempt)
    async with db.connect() as conn:
        assert [o for (o,) in await conn.execute(outcomes)] == ["killed", "ok"]


RULES = 100


async def _rules_due_together(db: AsyncEngine, sandbox: Sandbox) -> list[str]:
    """`RULES` rules of one attempt, every ten minutes from a second from now: all due at once.
    They are saved on a clock stopped before that start, so however long saving them takes on
    a busy machine, each one's first occurrence is the start (on the real clock, a rule saved
    after its start would have its first occurrence ten minutes later); the misfire grace
    covers the time saving takes."""
    saved_at = datetime.now(UTC)
    start = saved_at + timedelta(seconds=1)
    service = EngineService(db, sandbox, EngineConfig(), ManualClock(saved_at))
    async with db.begin() as conn:
        tenant, _ = await create_tenant(conn, "rules")
    spec = RuleSpec(
        name="r",
        schedule="every 10m",
        code=SCRIPT,
        params={"sleep_s": 0.3},
        max_attempts=1,
        start_at=start,
        misfire_grace_s=3600,
    )
    made = [await service.create_rule(tenant.id, spec) for _ in range(RULES)]
    return [rule.id for rule in made]


@pytest.mark.timeout(300)
async def test_sigterm_with_rules_due_plans_each_next_occurrence_once(
    db: AsyncEngine, database_url: str, sandbox: Sandbox, tmp_path: Path
) -> None:
    rule_ids = await _rules_due_together(db, sandbox)
    worker = _worker(database_url, tmp_path, CADENZA_MAX_CONCURRENCY="8")
    try:
        await eventually(lambda: _some_done_some_going(db), timeout_s=60)
        assert _terminate(worker, timeout_s=40) == 0
    finally:
        stop(worker)
    assert await _count(db, _actions(actions.c.status == "running")) == 0
    restarted = _worker(database_url, tmp_path, CADENZA_MAX_CONCURRENCY="8")
    try:
        first_done = _actions(actions.c.status == "succeeded")
        await eventually(lambda: _at_least(db, first_done, RULES), timeout_s=120)
    finally:
        stop(restarted)
    per_rule = select(actions.c.rule_id, actions.c.status, func.count()).group_by(
        actions.c.rule_id, actions.c.status
    )
    async with db.connect() as conn:
        counts = {(r, s): n for r, s, n in await conn.execute(per_rule)}
        outcomes = dict(
            (
                await conn.execute(select(runs.c.outcome, func.count()).group_by(runs.c.outcome))
            ).all()
        )
    for rule_id in rule_ids:
        assert counts[(rule_id, "succeeded")] == 1, "its first occurrence ran once"
        assert counts[(rule_id, "pending")] == 1, "its next occurrence was planned once"
    assert outcomes == {"ok": RULES}, "no attempt was recorded that did not run"
