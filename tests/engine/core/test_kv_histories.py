"""Serializability as a property: any interleaving of concurrent runs' kv operations, on a real
database, leaves exactly what running the committed runs one after the other would leave, and
every committed run saw exactly what it would have seen running alone at its commit.

Hypothesis draws the runs (gets, sets of values computed from what was read, increments,
compare-and-sets, deletes, listings) and the interleaving of their steps and commits; the
reference is `MemoryHost`, the plain dict behind `cadenza run-script`.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
import uvloop
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.postgres import PostgresCluster

from engine.runs.host import BufferedHost
from sandbox.memory_host import MemoryHost
from tenants.db import create_engine
from tenants.kv import list_items, put_value
from tenants.kv_snapshot import commit_changes
from tenants.registry import create_tenant

KEYS = ("a", "b", "c")
key = st.sampled_from(KEYS)
small = st.integers(-3, 3)
operation = st.one_of(
    st.tuples(st.just("get"), key),
    st.tuples(st.just("set"), key, small),  # the sum of what the run read, plus a constant
    st.tuples(st.just("incr"), key, small),
    st.tuples(st.just("set_if"), key, st.one_of(st.none(), small), small),
    st.tuples(st.just("delete"), key),
    st.tuples(st.just("keys"), st.sampled_from(("", "a", "b"))),
)
Run = list[tuple[Any, ...]]


@st.composite
def histories(draw: st.DrawFn) -> tuple[dict[str, int], list[Run], list[int]]:
    """Initial values, runs, and an interleaving: run r's k-th slot is its k-th operation,
    its last slot its commit."""
    initial = draw(st.dictionaries(key, small))
    runs = draw(st.lists(st.lists(operation, min_size=1, max_size=5), min_size=2, max_size=5))
    slots = [r for r, ops in enumerate(runs) for _ in range(len(ops) + 1)]
    return initial, runs, draw(st.permutations(slots))


async def _step(host: Any, op: tuple[Any, ...], read: list[int]) -> Any:
    kind, name, *args = op
    if kind == "get":
        value = await host.kv_get(name)
        read.append(value or 0)
        return value
    if kind == "set":
        return await host.kv_set(name, sum(read) + args[0])
    if kind == "incr":
        return await host.kv_incr(name, args[0])
    if kind == "set_if":
        return await host.kv_set_if(name, args[0], args[1])
    if kind == "delete":
        return await host.kv_delete(name)
    return await host.kv_keys(name)


async def _play(
    url: str, initial: dict[str, int], runs: Sequence[Run], order: Sequence[int]
) -> None:
    db = create_engine(url)
    try:
        async with db.begin() as conn:
            tenant, _ = await create_tenant(conn, "acme")
            for name, value in initial.items():
                await put_value(conn, tenant.id, name, value)
        hosts = [BufferedHost(db, tenant.id) for _ in runs]
        seen: list[list[Any]] = [[] for _ in runs]
        reads: list[list[int]] = [[] for _ in runs]
        committed: list[int] = []
        pending: list[int] = []

        def done(r: int) -> bool:
            return len(seen[r]) == len(runs[r])

        for position, r in enumerate(order):
            if done(r):
                pending.append(r)
            else:
                seen[r].append(await _step(hosts[r], runs[r][len(seen[r])], reads[r]))
            later = order[position + 1 :]
            if pending and not (later and done(later[0])):  # adjacent commits: one batch
                async with db.begin() as conn:
                    changes = [hosts[p].changes() for p in pending]
                    broken = await commit_changes(conn, tenant.id, changes)
                committed += [p for p, what in zip(pending, broken, strict=True) if what is None]
                pending = []
        async with db.connect() as conn:
            final = {i.key: i.value for i in await list_items(conn, tenant.id)}
    finally:
        await db.dispose()
    await _check(initial, runs, seen, committed, final)


async def _check(
    initial: dict[str, int],
    runs: Sequence[Run],
    seen: list[list[Any]],
    committed: list[int],
    final: dict[str, Any],
) -> None:
    model = MemoryHost(initial)
    for r in committed:
        read: list[int] = []
        alone = [await _step(model, op, read) for op in runs[r]]
        assert alone == seen[r], f"run {r} saw {seen[r]}, alone at its commit it sees {alone}"
    assert final == model.kv


def _database(request: pytest.FixtureRequest, kind: str, tmp_path: Path) -> str:
    if kind == "sqlite":
        path = tmp_path / f"h{next(_counter)}.db"
        shutil.copy(request.getfixturevalue("sqlite_template"), path)
        return f"sqlite+aiosqlite:///{path}"
    cluster: PostgresCluster = request.getfixturevalue("pg_cluster")
    return cluster.url(cluster.create_database(template="cadenza_template"))


_counter = iter(range(10**9))


@pytest.mark.parametrize("kind", ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(history=histories())
def test_interleaved_runs_commit_as_if_one_at_a_time(
    request: pytest.FixtureRequest, tmp_path: Path, kind: str, history: Any
) -> None:
    initial, runs, order = history
    uvloop.run(_play(_database(request, kind, tmp_path), initial, runs, order))
