"""Every row the engine inserts is built by the store, one constructor per table.

The properties: no module above the store writes a statement of its own; whatever way an
action is made, its row has the same columns and a consistent state; a run's row fills every
required column and never has a negative lateness.
"""

from __future__ import annotations

import ast
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import Table
from support.due_actions import due_action, rule

from engine.domain.due import Planned
from engine.domain.records import ActionStatus, RuleSpec, SkipReason
from engine.store import tables
from engine.store.rows import (
    NewAction,
    NewRun,
    action_row,
    follow_up_action,
    planned_action,
    rule_row,
    run_row,
)
from engine.store.snapshots import rule_snapshot

ENGINE = Path(__file__).resolve().parents[3] / "engine"
#: The tables the engine writes rows of.
WRITTEN = {"actions", "runs", "events", "rules"}
#: The store, and the migrations (which build the tables themselves).
ALLOWED = ("store", "migrations")

instants = st.datetimes(
    min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1), timezones=st.just(UTC)
)
reasons = st.none() | st.sampled_from(list(SkipReason))


def _written_table(call: ast.Call) -> str | None:
    """The table `call` writes: `<table>.insert()`/`.update()`, `insert(<table>)`/`update(...)`."""
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr in ("insert", "update"):
        target = func.value
    elif isinstance(func, ast.Name) and func.id in ("insert", "update") and call.args:
        target = call.args[0]
    else:
        return None
    return target.id if isinstance(target, ast.Name) and target.id in WRITTEN else None


def _writes(source: str) -> list[str]:
    calls = [n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Call)]
    return [ast.unparse(c) for c in calls if _written_table(c) is not None]


def test_no_module_above_the_store_writes_a_row() -> None:
    outside = [
        path for path in ENGINE.rglob("*.py") if path.relative_to(ENGINE).parts[0] not in ALLOWED
    ]
    assert len(outside) > 50  # the walk found the engine
    assert len(_writes("insert(actions).values(); runs.update(); rules.c.x.in_(())")) == 2
    writes = {str(p): _writes(p.read_text()) for p in outside}
    assert {p: w for p, w in writes.items() if w} == {}


def _required(table: Table) -> set[str]:
    """The columns a row must give: not null, no default, not the generated id."""
    return {
        c.name
        for c in table.c
        if not c.nullable and c.server_default is None and c.autoincrement is not True
    }


@given(now=instants, enabled=st.booleans(), start_at=st.none() | instants)
def test_a_rule_row_fills_every_required_column(
    now: datetime, enabled: bool, start_at: datetime | None
) -> None:
    spec = RuleSpec(name="n", schedule="0 9 * * *", code="x", enabled=enabled, start_at=start_at)
    row = rule_row(spec, "t_1", "r_1", now)
    assert _required(tables.rules) <= set(row) <= set(tables.rules.c.keys())
    assert row["paused_at"] == (None if enabled else now)
    assert rule_snapshot(row).anchor == (start_at or now)


@given(at=instants, now=instants, reason=reasons, key=st.text(min_size=1, max_size=20))
def test_every_kind_of_action_writes_the_same_columns_in_a_consistent_state(
    at: datetime, now: datetime, reason: SkipReason | None, key: str
) -> None:
    made = [
        planned_action(Planned(rule(), at, at, reason)),
        follow_up_action(due_action(rule_id="r_1"), key, {"n": 1}, at),
        NewAction(tenant_id="t_1", scheduled_at=at, due_at=at, key=key, reason=reason),
    ]
    rows = [action_row(new, now) for new in made]
    columns = set(tables.actions.c.keys())
    assert all(set(row) == set(rows[0]) <= columns for row in rows)
    assert _required(tables.actions) <= set(rows[0])
    for row in rows:
        is_skipped = row["reason"] is not None
        assert row["status"] == (ActionStatus.SKIPPED if is_skipped else ActionStatus.PENDING)
        assert row["finished_at"] == (now if is_skipped else None)
        assert row["attempt"] == 0 and row["created_at"] == now


@given(planned_at=instants, started_after_s=st.floats(-3600, 3600), duration_s=st.floats(0, 60))
def test_a_run_row_fills_every_required_column_and_is_never_early(
    planned_at: datetime, started_after_s: float, duration_s: float
) -> None:
    started_at = planned_at + timedelta(seconds=started_after_s)
    run = NewRun(
        tenant_id="t_1",
        action_id=1,
        rule_id=None,
        attempt=1,
        node="n",
        runtime="python",
        planned_at=planned_at,
        started_at=started_at,
        finished_at=started_at + timedelta(seconds=duration_s),
        outcome="ok",
        duration_ms=duration_s * 1000,
    )
    row = run_row(run)
    assert _required(tables.runs) <= set(row) <= set(tables.runs.c.keys())
    assert row["lateness_ms"] == pytest.approx(max(0.0, started_after_s * 1000), abs=1e-3)
