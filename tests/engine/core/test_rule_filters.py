"""Rule and run filters as a property: for generated rule sets (labels, state, runtime, the
outcomes of their runs, which of their actions are pending) and generated filters, the
database's answer, paged, equals the filter applied in Python to the whole set, each listed rule
with its next run and latest outcome; a neighbour tenant holding the same rules never shows."""

from __future__ import annotations

import shutil
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import uvloop
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy.engine import RowMapping
from sqlalchemy.ext.asyncio import AsyncConnection
from support.postgres import PostgresCluster

from engine.domain.labels import LabelRequirement
from engine.domain.records import ActionStatus, RuleSpec
from engine.domain.rule_filters import RuleFilter, RuleState, RunFilter
from engine.store import actions as action_store
from engine.store import rules as rule_store
from engine.store import runs as run_store
from engine.store.rows import NewAction, NewRun
from engine.store.tables import actions
from tenants.db import create_engine
from tenants.registry import create_tenant

NOW = datetime(2026, 11, 26, 12, tzinfo=UTC)
KEYS = ("team", "env", "a.b/c")
VALUES = ("ops", "dev", "", "Ops")
OUTCOMES = ("ok", "error", "timeout")
NAMES = ("billing digest", "Ops report", "cleanup")

rules_drawn = st.lists(
    st.fixed_dictionaries(
        {
            "labels": st.dictionaries(st.sampled_from(KEYS), st.sampled_from(VALUES), max_size=3),
            "enabled": st.booleans(),
            "runtime": st.sampled_from(("python", "micropython")),
            # Each run's outcome, and whether its action is still pending (a retried one is).
            "runs": st.lists(st.tuples(st.sampled_from(OUTCOMES), st.booleans()), max_size=2),
            "name": st.sampled_from(NAMES),
        }
    ),
    max_size=8,
)
requirements = st.builds(
    LabelRequirement, st.sampled_from(KEYS), st.one_of(st.none(), st.sampled_from(VALUES))
)
filters = st.builds(
    RuleFilter,
    labels=st.lists(requirements, max_size=3).map(tuple),
    state=st.one_of(st.none(), st.sampled_from(RuleState)),
    runtime=st.one_of(st.none(), st.sampled_from(("python", "micropython", "wasm"))),
    last_outcome=st.one_of(st.none(), st.sampled_from(OUTCOMES)),
    search=st.one_of(st.none(), st.sampled_from(("ops", "DIGEST", "x"))),
)


def _expected(rule: dict[str, Any], where: RuleFilter) -> bool:
    labels = rule["labels"]
    if not all(
        r.key in labels and (r.value is None or labels[r.key] == r.value) for r in where.labels
    ):
        return False
    if where.state is not None and rule["enabled"] != (where.state == "active"):
        return False
    if where.runtime is not None and rule["runtime"] != where.runtime:
        return False
    last = rule["runs"][-1][0] if rule["runs"] else None
    if where.last_outcome is not None and last != where.last_outcome:
        return False
    return not where.search or where.search.lower() in rule["name"].lower()


def _shown(rule: dict[str, Any]) -> tuple[datetime | None, str | None]:
    """The next run and latest outcome a listing shows beside the rule."""
    due = [NOW + timedelta(minutes=n) for n, (_, pending) in enumerate(rule["runs"]) if pending]
    return min(due, default=None), rule["runs"][-1][0] if rule["runs"] else None


async def _insert(conn: AsyncConnection, tenant_id: str, rule: dict[str, Any]) -> str:
    rule_id = f"r_{uuid.uuid4().hex[:16]}"
    spec = RuleSpec(
        name=rule["name"], schedule="FREQ=DAILY", code="def main(ctx): pass",
        runtime=rule["runtime"], enabled=rule["enabled"], labels=rule["labels"],
    )  # fmt: skip
    await rule_store.insert_rule(conn, spec, tenant_id, rule_id, NOW)
    for n, (outcome, pending) in enumerate(rule["runs"]):
        at = NOW + timedelta(minutes=n)
        new = NewAction(tenant_id=tenant_id, scheduled_at=at, due_at=at, rule_id=rule_id)
        action_id = await action_store.insert_action(conn, new, NOW)
        await run_store.insert_runs(conn, [_run(tenant_id, action_id, rule_id, at, outcome)])
        if not pending:
            done = actions.update().where(actions.c.id == action_id)
            await conn.execute(done.values(status=ActionStatus.SUCCEEDED))
    return rule_id


def _run(tenant_id: str, action_id: int, rule_id: str, at: datetime, outcome: str) -> NewRun:
    return NewRun(
        tenant_id=tenant_id, action_id=action_id, rule_id=rule_id, attempt=1, node="n",
        runtime="python", planned_at=at, started_at=at, finished_at=at, outcome=outcome,
        duration_ms=1.0,
    )  # fmt: skip


async def _listed(conn: AsyncConnection, tenant_id: str, where: RuleFilter) -> list[RowMapping]:
    """Every page of the listing, three rules a page."""
    found: list[RowMapping] = []
    while True:
        after = found[-1]["id"] if found else None
        page = await rule_store.list_rules(
            conn, tenant_id, after_id=after, limit=3, selection=where
        )
        found += page
        if len(page) < 3:
            return found


async def _check(url: str, drawn: list[dict[str, Any]], where: RuleFilter) -> None:
    db = create_engine(url)
    try:
        async with db.begin() as conn:
            tenants = [(await create_tenant(conn, uuid.uuid4().hex))[0].id for _ in range(2)]
            ids = [[await _insert(conn, t, rule) for rule in drawn] for t in tenants]
        mine = ids[0]
        shown = {i: _shown(rule) for i, rule in zip(mine, drawn, strict=True)}
        expected = sorted(i for i, rule in zip(mine, drawn, strict=True) if _expected(rule, where))
        async with db.connect() as conn:
            listed = await _listed(conn, tenants[0], where)
            assert [row["id"] for row in listed] == expected
            assert all((r["next_run_at"], r["last_outcome"]) == shown[r["id"]] for r in listed)
            for rule_id in mine:
                got = await rule_store.get_shown_rule(conn, tenants[0], rule_id)
                assert (
                    got is not None and (got["next_run_at"], got["last_outcome"]) == shown[rule_id]
                )
            selected = await rule_store.selected_rules(conn, tenants[0], where)
            assert [row["id"] for row in selected] == expected
            await _check_runs(conn, tenants[0], mine, drawn, where.labels)
    finally:
        await db.dispose()


async def _check_runs(
    conn: AsyncConnection,
    tenant_id: str,
    ids: list[str],
    drawn: list[dict[str, Any]],
    labels: tuple[LabelRequirement, ...],
) -> None:
    """Runs by their rules' labels: exactly the runs of the rules those labels select."""
    rows = await run_store.list_runs(conn, tenant_id, where=RunFilter(rule_labels=labels))
    chosen = {i for i, rule in zip(ids, drawn, strict=True) if _expected(rule, RuleFilter(labels))}
    wanted = sum(len(r["runs"]) for i, r in zip(ids, drawn, strict=True) if i in chosen)
    assert {row["rule_id"] for row in rows} <= chosen and len(rows) == wanted


#: One database per test (every example makes fresh tenants in it).
_databases: dict[str, str] = {}


def _database(request: pytest.FixtureRequest, kind: str, tmp_path: Path) -> str:
    if request.node.nodeid in _databases:
        return _databases[request.node.nodeid]
    if kind == "sqlite":
        path = tmp_path / "filters.db"
        shutil.copy(request.getfixturevalue("sqlite_template"), path)
        url = f"sqlite+aiosqlite:///{path}"
    else:
        cluster: PostgresCluster = request.getfixturevalue("pg_cluster")
        url = cluster.url(cluster.create_database(template="cadenza_template"))
    return _databases.setdefault(request.node.nodeid, url)


@pytest.mark.parametrize("kind", ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(drawn=rules_drawn, where=filters)
def test_filtered_rules_are_the_filter_applied_to_all_rules(
    request: pytest.FixtureRequest,
    tmp_path: Path,
    kind: str,
    drawn: list[dict[str, Any]],
    where: RuleFilter,
) -> None:
    uvloop.run(_check(_database(request, kind, tmp_path), drawn, where))
