"""`tenants.lean_statements` stores exactly what SQLAlchemy's own executemany stores, on both
databases: for arbitrary run records (any text, JSON results, instants in any zone, missing
values), the run rows, the start marks and the outcomes written the bulk way read back equal
to the same rows written through `Connection.execute`, JSON columns compared as stored."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import JSON as JsonType
from sqlalchemy import Text, cast, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine
from support.held_lock import assert_busy_while_locked

from engine.domain.records import ActionStatus, SkipReason
from engine.store import actions as action_store
from engine.store import claims
from engine.store import loop_statements as queue
from engine.store import runs as run_store
from engine.store.rows import NewAction, NewRun, run_row
from engine.store.tables import actions, runs
from tenants.registry import create_tenant

NOW = datetime(2026, 11, 27, 12, tzinfo=UTC)
#: Text both databases store (`sandbox.text` cleans the rest before it gets here).
TEXT = st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\x00"), max_size=30)
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=8,
)
INSTANTS = st.builds(
    lambda seconds, offset_min: (NOW + timedelta(seconds=seconds)).astimezone(
        timezone(timedelta(minutes=offset_min))
    ),
    st.floats(0, 10**7, allow_nan=False).map(lambda s: round(s, 6)),
    st.integers(-14 * 60, 14 * 60),
)
RUNS = st.fixed_dictionaries(
    {
        "started_after_s": st.floats(0, 100).map(lambda s: round(s, 6)),
        "outcome": st.sampled_from(["ok", "error", "timeout", "crashed"]),
        "error": st.none() | TEXT,
        "result": JSON_VALUES,
        "stdout": TEXT,
        "pid": st.none() | st.integers(1, 2**22),
        "output_truncated": st.booleans(),
        "cpu_ms": st.none() | st.floats(0, 10**6, allow_nan=False),
        "fuel": st.none() | st.integers(0, 2**62),
        "calls": st.none() | st.lists(st.dictionaries(TEXT, JSON_VALUES, max_size=2), max_size=2),
        "committed": st.booleans(),
        "planned_at": INSTANTS,
    }
)


#: One plain run's values, for the tests that are not about what a run holds.
PLAIN_RUN: dict[str, Any] = {
    "started_after_s": 0.0, "outcome": "ok", "error": None, "result": 1, "stdout": "",
    "pid": None, "output_truncated": False, "cpu_ms": None, "fuel": None, "calls": None,
    "committed": False, "planned_at": NOW,
}  # fmt: skip


def _run(tenant_id: str, action_id: int, values: dict[str, Any]) -> NewRun:
    planned = values["planned_at"]
    started = planned + timedelta(seconds=values["started_after_s"])
    return NewRun(
        tenant_id=tenant_id, action_id=action_id, rule_id=None, attempt=1, node="n",
        runtime="python", planned_at=planned, started_at=started, finished_at=started,
        outcome=values["outcome"], duration_ms=1.5, error=values["error"], pid=values["pid"],
        result=values["result"], stdout=values["stdout"],
        output_truncated=values["output_truncated"], cpu_ms=values["cpu_ms"],
        fuel=values["fuel"], calls=values["calls"], committed=values["committed"],
    )  # fmt: skip


async def _new_actions(conn: AsyncConnection, tenant_id: str, count: int) -> list[int]:
    new = NewAction(tenant_id=tenant_id, scheduled_at=NOW, due_at=NOW)
    return [await action_store.insert_action(conn, new, NOW) for _ in range(count)]


async def _rows(conn: AsyncConnection, table: Any, ids: list[int], key: Any) -> list[dict]:
    """The rows as read back, and the JSON columns as stored (SQL NULL and JSON `null` both
    read back as None)."""
    stored = [
        cast(c, Text).label(f"{c.name} as stored") for c in table.c if isinstance(c.type, JsonType)
    ]
    query = select(table, *stored).where(key.in_(ids)).order_by(key)
    rows = [dict(r) for r in (await conn.execute(query)).mappings()]
    return [{k: v for k, v in r.items() if k != "id"} | {key.key: None} for r in rows]


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(st.lists(RUNS, min_size=1, max_size=4), st.data())
async def test_bulk_writes_read_back_as_sqlalchemys_do(
    db: AsyncEngine, records: list[dict[str, Any]], data: st.DataObject
) -> None:
    async with db.begin() as conn:
        tenant, _ = await create_tenant(conn, uuid.uuid4().hex)
        bulk_ids = await _new_actions(conn, tenant.id, len(records))
        plain_ids = await _new_actions(conn, tenant.id, len(records))
        # runs: the store's bulk insert against SQLAlchemy's executemany of the same rows
        committed = {i for i, r in zip(bulk_ids, records, strict=True) if r["committed"]}
        bulk = [
            _run(tenant.id, i, r | {"committed": False})
            for i, r in zip(bulk_ids, records, strict=True)
        ]
        await run_store.insert_runs(conn, bulk, committed)
        plain = [_run(tenant.id, i, r) for i, r in zip(plain_ids, records, strict=True)]
        await conn.execute(runs.insert(), [run_row(r) for r in plain])
        # start marks and outcomes, on running actions at version 1
        for ids in (bulk_ids, plain_ids):
            await conn.execute(
                update(actions)
                .where(actions.c.id.in_(ids))
                .values(status=ActionStatus.RUNNING, version=1)
            )
        starts = [data.draw(INSTANTS) for _ in records]
        await claims.mark_started(
            conn, [claims.StartMark(i, 1, at) for i, at in zip(bulk_ids, starts, strict=True)]
        )
        outcomes = [
            {
                "status": data.draw(st.sampled_from(list(ActionStatus))),
                "reason": data.draw(st.none() | st.sampled_from(list(SkipReason))),
                "due_at": data.draw(INSTANTS),
                "finished_at": data.draw(st.none() | INSTANTS),
                "max_attempts": data.draw(st.integers(1, 10)),
            }
            for _ in records
        ]
        await queue.set_outcomes(
            conn,
            [
                {f"b_{k}": v for k, v in o.items()} | {"b_id": i}
                for i, o in zip(bulk_ids, outcomes, strict=True)
            ],
        )
        for i, at, o in zip(plain_ids, starts, outcomes, strict=True):
            await conn.execute(update(actions).where(actions.c.id == i).values(started_at=at))
            await conn.execute(
                update(actions)
                .where(actions.c.id == i)
                .values(**o, claimed_by=None, lease_until=None)
            )
        for table, key in ((runs, runs.c.action_id), (actions, actions.c.id)):
            assert await _rows(conn, table, bulk_ids, key) == await _rows(
                conn, table, plain_ids, key
            )


async def test_a_bulk_write_that_breaks_a_constraint_fails_as_sqlalchemy_fails_and_keeps_nothing(
    db: AsyncEngine,
) -> None:
    """On SQLite the bulk statements bypass SQLAlchemy's execution; their failures must still
    be SQLAlchemy's (the engine's fault handling reads them), and leave nothing behind."""
    async with db.begin() as conn:
        tenant, _ = await create_tenant(conn, uuid.uuid4().hex)
        (action_id,) = await _new_actions(conn, tenant.id, 1)
    good, orphan = _run(tenant.id, action_id, PLAIN_RUN), _run(tenant.id, 10**9, PLAIN_RUN)
    with pytest.raises(IntegrityError):
        async with db.begin() as conn:
            await run_store.insert_runs(conn, [good, orphan], set())
    async with db.connect() as conn:
        stored = await conn.execute(select(runs.c.id).where(runs.c.tenant_id == tenant.id))
        assert stored.all() == []


class _Abandoned(Exception):
    pass


async def test_bulk_writes_belong_to_their_transaction(db: AsyncEngine) -> None:
    """A bulk write is part of the transaction it runs in (on SQLite it goes past SQLAlchemy's
    execution): rolled back with it, every row and mark is gone, committed they all stay."""
    async with db.begin() as conn:
        tenant, _ = await create_tenant(conn, uuid.uuid4().hex)
        ids = await _new_actions(conn, tenant.id, 3)
        running = update(actions).where(actions.c.id.in_(ids))
        await conn.execute(running.values(status=ActionStatus.RUNNING, version=1))

    async def write(conn: AsyncConnection) -> None:
        await run_store.insert_runs(conn, [_run(tenant.id, i, PLAIN_RUN) for i in ids], set())
        await claims.mark_started(conn, [claims.StartMark(i, 1, NOW) for i in ids])

    with pytest.raises(_Abandoned):
        async with db.begin() as conn:
            await write(conn)
            raise _Abandoned
    async with db.connect() as conn:
        assert await _written(conn, ids) == (0, 0)
    async with db.begin() as conn:
        await write(conn)
    async with db.connect() as conn:
        assert await _written(conn, ids) == (3, 3)


async def _written(conn: AsyncConnection, ids: list[int]) -> tuple[int, int]:
    """(run rows, start marks) of the actions `ids`."""
    run_rows = await conn.execute(select(runs.c.id).where(runs.c.action_id.in_(ids)))
    marked = await conn.execute(
        select(actions.c.id).where(actions.c.id.in_(ids), actions.c.started_at.is_not(None))
    )
    return len(run_rows.all()), len(marked.all())


async def test_a_bulk_write_on_sqlite_that_meets_a_held_write_lock_is_a_busy_database(
    sqlite_template: Path, tmp_path: Path
) -> None:
    async def prepare(conn: AsyncConnection) -> int:
        tenant, _ = await create_tenant(conn, uuid.uuid4().hex)
        (action_id,) = await _new_actions(conn, tenant.id, 1)
        return action_id

    async def write(conn: AsyncConnection, action_id: int) -> None:
        await claims.mark_started(conn, [claims.StartMark(action_id, 0, NOW)])

    await assert_busy_while_locked(sqlite_template, tmp_path, prepare, write)
