"""Claims that wait for the write turn share the next transaction on SQLite (one per claim on
PostgreSQL), and sharing never loses a claim: every committed claim has its run started, a
claim the database refuses fails only its own tenant, and a writer stopped before its commit
wrote nothing."""

from __future__ import annotations

import asyncio
import sqlite3
import uuid
from collections.abc import AsyncIterator, Iterator

import pytest
import pytest_asyncio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import event, select
from sqlalchemy.ext.asyncio import AsyncEngine
from support.tenant_states import tenant_state

from bench.ours import one_off
from engine.clock import ManualClock
from engine.config import EngineConfig
from engine.deps import Deps
from engine.loop import claim_batches, claiming
from engine.loop.claim_batches import ClaimBatches
from engine.loop.tenant_state import TenantState
from engine.runs.runner import Claimed
from engine.store import loop_statements as queue
from engine.store.actions import insert_actions
from engine.store.faults import is_unavailable
from engine.store.tables import actions
from sandbox import Sandbox
from tenants.registry import create_tenant

CODE = "def main(ctx):\n    pass\n"
SQLITE_ONLY = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)


class Books:
    """What the batches started, and the node's write turn held by the test."""

    def __init__(self, deps: Deps) -> None:
        self.deps = deps
        self.started: list[int] = []
        self.claims = ClaimBatches(deps, self.start_run)
        self.release = asyncio.Event()
        self.holding = asyncio.Event()

    def start_run(self, state: TenantState, claimed: Claimed) -> None:
        assert claimed.action.tenant_id == state.tenant_id
        self.started.append(claimed.action.id)

    async def hold_the_turn(self) -> None:
        async with self.deps.write():
            self.holding.set()
            await self.release.wait()


@pytest_asyncio.fixture(loop_scope="module")
async def books(
    db: AsyncEngine, sandbox: Sandbox, engine_config: EngineConfig, clock: ManualClock
) -> Books:
    return Books(Deps(db, sandbox, engine_config, clock, lambda _t, _c: None))


@pytest.fixture
def commits(db: AsyncEngine) -> Iterator[list[int]]:
    """One item per committed transaction on `db`."""
    seen: list[int] = []

    def count(_conn: object) -> None:
        seen.append(1)

    event.listen(db.sync_engine, "commit", count)
    yield seen
    event.remove(db.sync_engine, "commit", count)


async def _tenants_with_one_due(db: AsyncEngine, clock: ManualClock, count: int) -> list[str]:
    ids = []
    async with db.begin() as conn:
        for n in range(count):
            tenant, _ = await create_tenant(conn, f"t{n}-{uuid.uuid4().hex[:8]}")
            ids.append(tenant.id)
        await insert_actions(conn, [one_off(t, CODE, clock.now()) for t in ids])
    return ids


async def _requests(
    db: AsyncEngine, clock: ManualClock, config: EngineConfig, tenant_ids: list[str]
) -> list[tuple[list[claiming.Decided], TenantState]]:
    now, made = clock.now(), []
    async with db.connect() as conn:
        for tenant_id in tenant_ids:
            state = tenant_state(now, tenant_id=tenant_id)
            due = await queue.fetch_due(conn, tenant_id, now, 10, ())
            made.append((claiming.decide_all(due, state, now, config), state))
    return made


async def _running(db: AsyncEngine) -> set[int]:
    async with db.connect() as conn:
        query = select(actions.c.id).where(actions.c.status == "running")
        return {i for (i,) in await conn.execute(query)}


Waiting = tuple[asyncio.Task[None], list[asyncio.Task[claiming.StepResult]]]


@pytest_asyncio.fixture(loop_scope="module")
async def claims_waiting(
    db: AsyncEngine, database_url: str, clock: ManualClock, books: Books
) -> AsyncIterator[Waiting]:
    """Three tenants' claims asked for while the test holds the write turn (on SQLite they
    wait for it; PostgreSQL has none)."""
    tenant_ids = await _tenants_with_one_due(db, clock, 3)
    requests = await _requests(db, clock, books.deps.config, tenant_ids)
    holder = asyncio.create_task(books.hold_the_turn())
    await books.holding.wait()
    now = clock.now()
    tasks = [asyncio.create_task(books.claims.claim(d, s, now)) for d, s in requests]
    if database_url.startswith("sqlite"):
        while len(books.claims._waiting) < len(tasks):
            await asyncio.sleep(0)
    yield holder, tasks
    books.release.set()
    await holder


async def test_claims_waiting_for_the_turn_share_one_transaction_and_all_start(
    db: AsyncEngine,
    database_url: str,
    books: Books,
    claims_waiting: Waiting,
    commits: list[int],
) -> None:
    holder, tasks = claims_waiting
    books.release.set()
    await holder
    steps = await asyncio.gather(*tasks)
    claimed = [c.action.id for step in steps for c in step.claimed]
    assert len(claimed) == 3 and sorted(books.started) == sorted(claimed)
    assert await _running(db) == set(claimed)
    shared = database_url.startswith("sqlite")
    assert len(commits) == (1 + 1 if shared else 1 + 3), "the holder's, then the claims'"


@SQLITE_ONLY
async def test_a_claim_the_database_refuses_fails_alone(
    db: AsyncEngine,
    books: Books,
    claims_waiting: Waiting,
    commits: list[int],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    holder, tasks = claims_waiting
    bad_tenant = books.claims._waiting[1].state.tenant_id
    real_apply = claiming.apply

    async def refusing(conn, decided, state, now, config):  # type: ignore[no-untyped-def]
        if state.tenant_id == bad_tenant:
            raise ValueError("this tenant's rows cannot be written")
        return await real_apply(conn, decided, state, now, config)

    monkeypatch.setattr(claim_batches.claiming, "apply", refusing)
    books.release.set()
    await holder
    results = await asyncio.gather(*tasks, return_exceptions=True)
    assert isinstance(results[1], ValueError), results
    claimed = {c.action.id for r in (results[0], results[2]) for c in r.claimed}  # type: ignore[union-attr]
    assert len(claimed) == 2 and set(books.started) == claimed == await _running(db)
    assert len(commits) == 1 + 2, "the holder's, then each good claim alone"


@SQLITE_ONLY
async def test_a_loop_gone_while_its_claim_waits_still_has_its_run_started(
    db: AsyncEngine,
    books: Books,
    claims_waiting: Waiting,
) -> None:
    holder, tasks = claims_waiting
    tasks[0].cancel()
    books.release.set()
    await holder
    results = await asyncio.gather(*tasks, return_exceptions=True)
    assert isinstance(results[0], asyncio.CancelledError)
    assert len(books.started) == 3 and set(books.started) == await _running(db)


@SQLITE_ONLY
async def test_a_writer_stopped_before_its_commit_wrote_nothing(
    db: AsyncEngine,
    books: Books,
    claims_waiting: Waiting,
) -> None:
    holder, tasks = claims_waiting
    writer = books.claims.writer
    assert writer is not None
    writer.cancel()
    books.release.set()
    await holder
    results = await asyncio.gather(*tasks, return_exceptions=True)
    assert all(isinstance(r, asyncio.CancelledError) for r in results), results
    assert books.started == [] and await _running(db) == set()
    assert books.claims.writer is None


@SQLITE_ONLY
async def test_a_database_locked_past_the_busy_timeout_fails_every_claim_waiting(
    db: AsyncEngine, database_url: str, books: Books, claims_waiting: Waiting
) -> None:
    holder, tasks = claims_waiting
    other_process = sqlite3.connect(database_url.split("///", 1)[1], isolation_level=None)
    other_process.execute("BEGIN IMMEDIATE")  # held past the busy timeout
    try:
        books.release.set()
        await holder
        results = await asyncio.gather(*tasks, return_exceptions=True)
    finally:
        other_process.rollback()
        other_process.close()
    assert all(isinstance(r, Exception) and is_unavailable(r) for r in results), results
    assert books.started == [] and await _running(db) == set()
    assert books.claims.writer is None, "each loop backs off on its own: no retry here"


@SQLITE_ONLY
@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(fates=st.lists(st.sampled_from(["waits", "gone", "refused"]), min_size=1, max_size=6))
async def test_whatever_the_waiting_loops_do_a_claim_is_committed_exactly_when_its_run_starts(
    db: AsyncEngine,
    sandbox: Sandbox,
    engine_config: EngineConfig,
    clock: ManualClock,
    fates: list[str],
) -> None:
    """Generated loops waiting together: some wait, some are cancelled while they wait, some
    have claims the database refuses. Every claim committed has its run started, no other;
    a refused claim leaves its action pending and fails only its own loop."""
    books = Books(Deps(db, sandbox, engine_config, clock, lambda _t, _c: None))
    tenant_ids = await _tenants_with_one_due(db, clock, len(fates))
    requests = await _requests(db, clock, engine_config, tenant_ids)
    refused = {t for t, fate in zip(tenant_ids, fates, strict=True) if fate == "refused"}
    real_apply = claiming.apply

    async def refusing(conn, decided, state, now, config):  # type: ignore[no-untyped-def]
        if state.tenant_id in refused:
            raise ValueError("this tenant's rows cannot be written")
        return await real_apply(conn, decided, state, now, config)

    before = await _running(db)
    holder = asyncio.create_task(books.hold_the_turn())
    await books.holding.wait()
    tasks = [asyncio.create_task(books.claims.claim(d, s, clock.now())) for d, s in requests]
    while len(books.claims._waiting) < len(tasks):
        await asyncio.sleep(0)
    for task, fate in zip(tasks, fates, strict=True):
        if fate == "gone":
            task.cancel()
    claim_batches.claiming.apply = refusing  # type: ignore[assignment]
    try:
        books.release.set()
        await holder
        results = await asyncio.gather(*tasks, return_exceptions=True)
        if books.claims.writer is not None:  # still writing the claims of loops gone
            await books.claims.writer
    finally:
        claim_batches.claiming.apply = real_apply  # type: ignore[assignment]
    committed = await _running(db) - before
    assert set(books.started) == committed and len(books.started) == len(committed)
    assert len(committed) == len(fates) - len(refused)
    for result, fate in zip(results, fates, strict=True):
        expected = {"waits": claiming.StepResult, "gone": asyncio.CancelledError}
        assert isinstance(result, expected.get(fate, ValueError)), (fate, result)
