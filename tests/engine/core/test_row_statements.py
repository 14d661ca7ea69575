"""`tenants.lean_statements.RowStatement` reads exactly what SQLAlchemy's execution reads, on
both databases: the loop's due and upcoming reads (actions joined with their rules: instants,
JSON, booleans, NULLs) and its claims and holds (writes with RETURNING, `IN` lists of any
length) give the same records and leave the same rows as the same statements run through
`Connection.execute`. On SQLite they go past SQLAlchemy; its failures must still be SQLAlchemy's,
and its writes must belong to their transaction."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import Text, cast, column, select, update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine
from support.due_actions import due_action
from support.held_lock import assert_busy_while_locked

from engine.domain.due import DueAction
from engine.domain.records import ActionStatus, RuleSpec
from engine.store import actions as action_store
from engine.store import loop_statements as queue
from engine.store.rows import NewAction
from engine.store.rules import insert_rule
from engine.store.snapshots import joined_due_action
from engine.store.tables import actions, rules
from tenants.lean_statements import RowStatement
from tenants.registry import create_tenant

NOW = datetime(2026, 11, 27, 12, tzinfo=UTC)
INSTANTS = st.builds(
    lambda seconds, offset_min: (NOW + timedelta(seconds=seconds)).astimezone(
        timezone(timedelta(minutes=offset_min))
    ),
    st.floats(-1000, 1000, allow_nan=False).map(lambda s: round(s, 6)),
    st.integers(-14 * 60, 14 * 60),
)
TEXT = st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\x00"), max_size=12)
PARAMS = st.none() | st.dictionaries(TEXT, st.none() | st.booleans() | st.integers() | TEXT)
ACTIONS = st.lists(
    st.fixed_dictionaries(
        {
            "due_at": INSTANTS,
            "priority": st.integers(-3, 3),
            "params": PARAMS,
            "of_rule": st.booleans(),
            "status": st.sampled_from([ActionStatus.PENDING, ActionStatus.PENDING, "running"]),
        }
    ),
    min_size=1,
    max_size=8,
)
HYPOTHESIS = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


async def _tenant_with(conn: AsyncConnection, drawn: list[dict[str, Any]]) -> tuple[str, list]:
    """A new tenant whose actions are `drawn` (some of a rule with a start, JSON params and a
    calendar-free schedule): its id and the actions' (id, version) pairs."""
    tenant, _ = await create_tenant(conn, uuid.uuid4().hex)
    spec = RuleSpec(name="r", schedule="* * * * *", code="def main(ctx):\n    pass\n")
    rule = await insert_rule(conn, spec, tenant.id, uuid.uuid4().hex, NOW)
    pairs = []
    for values in drawn:
        of_rule = {"rule_id": rule.id, "rule_version": rule.version} if values["of_rule"] else {}
        new = NewAction(
            tenant_id=tenant.id,
            scheduled_at=values["due_at"],
            due_at=values["due_at"],
            priority=values["priority"],
            params=values["params"],
            **of_rule,
        )
        action_id = await action_store.insert_action(conn, new, NOW)
        status = update(actions).where(actions.c.id == action_id)
        await conn.execute(status.values(status=values["status"]))
        pairs.append((action_id, 0))
    return tenant.id, pairs


async def _through_sqlalchemy(
    conn: AsyncConnection, lean: RowStatement, params: dict[str, Any]
) -> list[dict[str, Any]]:
    return [dict(r) for r in (await conn.execute(lean.statement, params)).mappings()]


async def _table(conn: AsyncConnection, ids: list[int]) -> list[dict[str, Any]]:
    """The actions' rows, with every column also as stored (an instant's text, say)."""
    stored = [cast(c, Text).label(f"{c.name} as stored") for c in actions.c]
    query = select(actions, *stored).where(actions.c.id.in_(ids)).order_by(actions.c.id)
    return [dict(r) for r in (await conn.execute(query)).mappings()]


class _Undone(Exception):
    """Raised to roll a transaction back once what it read has been kept."""


@HYPOTHESIS
@given(ACTIONS, INSTANTS, st.integers(1, 10))
async def test_the_loops_reads_find_what_sqlalchemy_finds(
    db: AsyncEngine, drawn: list[dict[str, Any]], now: datetime, limit: int
) -> None:
    async with db.begin() as conn:
        tenant_id, _ = await _tenant_with(conn, drawn)
    async with db.connect() as conn:
        due = await queue.fetch_due(conn, tenant_id, now, limit, ())
        upcoming = await queue.fetch_upcoming(conn, tenant_id, limit, ())
        due_params = {"d_tenant": tenant_id, "d_now": now, "d_limit": limit}
        expected_due = await _through_sqlalchemy(conn, queue._DUE, due_params)
        upcoming_params = {"d_tenant": tenant_id, "d_limit": limit}
        expected_upcoming = await _through_sqlalchemy(conn, queue._UPCOMING, upcoming_params)
    assert due == [joined_due_action(r) for r in expected_due]
    assert upcoming == [joined_due_action(r) for r in expected_upcoming]
    assert len(due) == min(
        limit, sum(d["status"] == "pending" and d["due_at"] <= now for d in drawn)
    )


@HYPOTHESIS
@given(ACTIONS, st.data())
async def test_claims_and_holds_return_and_write_what_sqlalchemy_does(
    db: AsyncEngine, drawn: list[dict[str, Any]], data: st.DataObject
) -> None:
    """Each claim names some actions as read, some at a version they no longer have; the
    same claim through SQLAlchemy (rolled back in between) wins the same ones and leaves the
    same rows."""
    async with db.begin() as conn:
        _, pairs = await _tenant_with(conn, drawn)
    ids = [i for i, _ in pairs]
    named = data.draw(st.lists(st.sampled_from(pairs), min_size=1, unique=True))
    named = [(i, v + data.draw(st.sampled_from([0, 0, 1]))) for i, v in named]
    at = data.draw(INSTANTS)
    claim = {**queue._as_read("c_read", named), "c_node": "n", "c_now": at, "c_lease_until": at}
    outcomes = []
    for run in ("lean", "sqlalchemy"):
        with pytest.raises(_Undone):
            async with db.begin() as conn:
                if run == "lean":
                    won = await queue.claim(conn, _due_as(named), "n", at, at)
                    held = await queue.hold(conn, won)
                else:
                    found = await _through_sqlalchemy(conn, queue._CLAIM, claim)
                    won = {r["id"]: r["version"] for r in found}
                    hold = queue._as_read("h_claims", won.items())
                    held = {r["id"] for r in await _through_sqlalchemy(conn, queue._HOLD, hold)}
                outcomes.append((won, held, await _table(conn, ids)))
                raise _Undone
    assert outcomes[0] == outcomes[1]
    pending = {p for p, d in zip(pairs, drawn, strict=True) if d["status"] == "pending"}
    assert set(outcomes[0][0]) == {i for i, v in named if (i, v) in pending}


def _due_as(pairs: list[tuple[int, int]]) -> list[DueAction]:
    """Due actions as a claim reads them: their id and version."""
    return [due_action(id=i, version=v) for i, v in pairs]


_PENDING = {"due_at": NOW, "priority": 0, "params": None, "of_rule": True, "status": "pending"}


async def test_a_lean_claim_belongs_to_its_transaction(db: AsyncEngine) -> None:
    async with db.begin() as conn:
        _, pairs = await _tenant_with(conn, [_PENDING] * 3)
    with pytest.raises(_Undone):
        async with db.begin() as conn:
            assert len(await queue.claim(conn, _due_as(pairs), "n", NOW, NOW)) == 3
            raise _Undone
    async with db.connect() as conn:
        assert {r["status"] for r in await _table(conn, [i for i, _ in pairs])} == {"pending"}
    async with db.begin() as conn:
        assert len(await queue.claim(conn, _due_as(pairs), "n", NOW, NOW)) == 3
    async with db.connect() as conn:
        assert {r["status"] for r in await _table(conn, [i for i, _ in pairs])} == {"running"}


async def test_a_lean_claim_on_sqlite_that_meets_a_held_write_lock_is_a_busy_database(
    sqlite_template: Path, tmp_path: Path
) -> None:
    async def prepare(conn: AsyncConnection) -> list[tuple[int, int]]:
        return (await _tenant_with(conn, [_PENDING]))[1]

    async def write(conn: AsyncConnection, pairs: list[tuple[int, int]]) -> None:
        await queue.claim(conn, _due_as(pairs), "n", NOW, NOW)

    await assert_busy_while_locked(sqlite_template, tmp_path, prepare, write)


def test_a_statement_whose_columns_share_a_key_is_refused() -> None:
    """Rows are read into mappings by column key: two columns of one key would lose one."""
    with pytest.raises(TypeError, match="share a key"):
        RowStatement(select(column("a"), column("a").label("b"), column("b")))


@HYPOTHESIS
@given(st.lists(st.sampled_from(["live", "paused", "deleted"]), min_size=1, max_size=5), st.data())
async def test_live_rules_are_read_as_sqlalchemy_reads_them(
    db: AsyncEngine, states: list[str], data: st.DataObject
) -> None:
    """Rules of every column kind (JSON params and calendars, booleans, instants, NULLs),
    some paused or deleted, read by ids of any number, some unknown."""
    async with db.begin() as conn:
        tenant, _ = await create_tenant(conn, uuid.uuid4().hex)
        ids = []
        for state in states:
            spec = RuleSpec(
                name="r",
                schedule="* * * * *",
                code="def main(ctx):\n    pass\n",
                params=data.draw(PARAMS),
                start_at=data.draw(st.none() | INSTANTS),
                enabled=state != "paused",
            )
            rule = await insert_rule(conn, spec, tenant.id, uuid.uuid4().hex, NOW)
            if state == "deleted":
                gone = update(rules).where(rules.c.id == rule.id)
                await conn.execute(gone.values(deleted_at=data.draw(INSTANTS)))
            ids.append(rule.id)
    asked = data.draw(st.lists(st.sampled_from([*ids, "unknown"]), min_size=1, unique=True))
    async with db.connect() as conn:
        lean = await queue._LIVE_RULES.mappings(conn, {"l_ids": asked})
        expected = await _through_sqlalchemy(conn, queue._LIVE_RULES, {"l_ids": asked})
    by_id = sorted(((dict(r) for r in lean)), key=lambda r: r["id"])
    assert by_id == sorted(expected, key=lambda r: r["id"])
    live = {i for i, s in zip(ids, states, strict=True) if s == "live"}
    assert {r["id"] for r in by_id} == live & set(asked)
