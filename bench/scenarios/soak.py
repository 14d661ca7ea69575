"""soak: `cadenza serve` keeping time for many tenants' rules while API clients come and go.

N tenants with rules `every Ns`, spread so that together they are due at the target rate, run
for a phase without API load and then for a phase at each of 1, 16 and 64 concurrent API clients
(each looping over list, get, preview and submit), then `GET /v1/rules` alone at 16 clients,
and the same query served by a bare Starlette route (`bench.peer_api`) on the same database
while the engine still works. Reported per phase: runs/s and lateness
p50/p99 of the rules' runs, their occurrences not run (misfire, overlap) and the API
percentiles by route; at the end the RSS of serve's processes, the database's growth per hour
and the loss check: every rule's occurrences from its first to the end, expected against
recorded (none missing, none doubled).

`BENCH_CHECKOUT=/path/to/other/checkout` serves that checkout's code instead (how the report's
"before" column, one process, was measured against main). A benchmark, not a test: quick mode
runs 30 s phases, full mode 10 minutes each; `BENCH_SOAK_PHASE_S=120` runs the full workload
with phases of that many seconds (a look at the full workload in a quarter of an hour).
"""

from __future__ import annotations

import asyncio
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncEngine

from bench import api_load
from bench.context import Context
from bench.results import Recorder, ScenarioResult, Status
from bench.server import Served, peer_serving, serving
from bench.stats import percentile
from bench.workload import TRIVIAL_PYTHON
from engine.store.tables import actions, runs
from tenants.connect import open_database

ADMIN_TOKEN = "bench-soak-operator-token"
CLIENTS = (0, 1, 16, 64)
#: Clients of the list-only phases, Cadenza's route and then the bare peer's query.
PEER_CLIENTS = 16
PEER = "bare Starlette, same query"
QUOTAS = {
    "min_interval_s": 1,
    "allow_secondly": True,
    "requests_per_minute": 1_000_000,
    "max_rules": 10_000,
}


def _phase_s(ctx: Context, quick_s: float, full_s: float) -> float:
    """A phase's length: `BENCH_SOAK_PHASE_S` when set, else the mode's."""
    return float(os.environ.get("BENCH_SOAK_PHASE_S") or ctx.pick(quick_s, full_s))


async def _tenants(served: Served, count: int, rules: int, every_s: int) -> list[api_load.Tenant]:
    """`count` tenants with `rules` rules each, through the API as customers would (the
    tenants side by side, each its rules one after another)."""
    async with httpx.AsyncClient(base_url=served.base_url, timeout=120) as client:
        return list(
            await asyncio.gather(*(_tenant(client, t, rules, every_s) for t in range(count)))
        )


async def _tenant(
    client: httpx.AsyncClient, number: int, rules: int, every_s: int
) -> api_load.Tenant:
    operator = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
    body = {"name": f"soak-{number}", "quotas": QUOTAS}
    tenant = (await client.post("/v1/admin/tenants", json=body, headers=operator)).json()
    headers = {"Authorization": f"Bearer {tenant['api_key']}"}
    ids = []
    for r in range(rules):
        rule = {"name": f"r{r}", "schedule": f"every {every_s}s", "code": TRIVIAL_PYTHON}
        answer = await client.post("/v1/rules", json=rule, headers=headers)
        if answer.status_code != 201:
            raise RuntimeError(f"creating a rule answered {answer.text[:300]}")
        ids.append(answer.json()["id"])
    return api_load.Tenant(tenant["id"], tenant["api_key"], tuple(ids))


def _rule_runs(start: datetime, end: datetime) -> object:
    joined = runs.join(actions, runs.c.action_id == actions.c.id)
    return (
        select(runs.c.lateness_ms)
        .select_from(joined)
        .where(actions.c.rule_id.is_not(None), runs.c.started_at >= start, runs.c.started_at < end)
    )


async def _phase_figures(
    db: AsyncEngine, start: datetime, end: datetime, case: str, system: str, rec: Recorder
) -> None:
    async with db.connect() as conn:
        lateness = [row[0] for row in await conn.execute(_rule_runs(start, end))]  # type: ignore[call-overload]
        skipped = await conn.scalar(
            select(func.count()).where(
                actions.c.rule_id.is_not(None),
                actions.c.status == "skipped",
                actions.c.scheduled_at >= start,
                actions.c.scheduled_at < end,
            )
        )
    rec.add(case, system, "rule runs/s", "runs/s", len(lateness) / (end - start).total_seconds())
    if lateness:
        rec.add(case, system, "lateness p50", "ms", percentile(lateness, 50))
        rec.add(case, system, "lateness p99", "ms", percentile(lateness, 99))
    rec.add(case, system, "occurrences skipped", "actions", float(skipped or 0))


def _api_figures(
    found: api_load.Latencies, duration_s: float, case: str, system: str, rec: Recorder
) -> None:
    for route, ms in found.ms.items():
        rec.add(case, system, f"API {route} p50", "ms", percentile(ms, 50))
        rec.add(case, system, f"API {route} p99", "ms", percentile(ms, 99))
        rec.add(case, system, f"API {route} req/s", "req/s", len(ms) / duration_s)
    rec.add(case, system, "API errors", "answers", float(found.errors))


async def _list_against_peer(
    ctx: Context,
    served: Served,
    url: str,
    made: list[api_load.Tenant],
    case: str,
    system: str,
    rec: Recorder,
) -> str:
    """`GET /v1/rules` alone, then the bare peer's same query with as many processes as
    `serve` has API processes, each at `PEER_CLIENTS` clients while the engine works; a note
    with the ratio of their req/s."""
    phase_s = _phase_s(ctx, 30.0, 300.0)
    ours = await api_load.load(served.base_url, made, PEER_CLIENTS, phase_s, ("list",))
    _api_figures(ours, phase_s, case, system, rec)
    with peer_serving(url, ctx.work_dir / "soak-peer.log", os.cpu_count() or 1) as peer:
        theirs = await api_load.load(
            peer.base_url, made, PEER_CLIENTS, phase_s, (api_load.PEER_LIST,)
        )
    _api_figures(theirs, phase_s, case, PEER, rec)
    ratio = len(ours.ms["list"]) / max(len(theirs.ms["list"]), 1)
    return f"GET /v1/rules at {PEER_CLIENTS} clients: {ratio:.2f}x the bare peer's req/s"


async def _loss_check(db: AsyncEngine, until: datetime, every_s: int) -> tuple[int, int, int]:
    """Expected occurrences of every rule from its first until `until`, recorded (distinct),
    and doubled ones."""
    per_rule = (
        select(
            func.min(actions.c.scheduled_at),
            func.count(),
            func.count(func.distinct(actions.c.scheduled_at)),
        )
        .where(actions.c.rule_id.is_not(None), actions.c.scheduled_at < until)
        .group_by(actions.c.rule_id)
    )
    expected = recorded = doubled = 0
    async with db.connect() as conn:
        for first, count, distinct in await conn.execute(per_rule):
            first = first if first.tzinfo else first.replace(tzinfo=UTC)
            expected += int((until - first).total_seconds() // every_s) + 1
            recorded += distinct
            doubled += count - distinct
    return expected, recorded, doubled


def _db_bytes(url: str) -> int:
    path = Path(url.split("///", 1)[1])
    return sum(p.stat().st_size for p in path.parent.glob(path.name + "*"))


async def run(ctx: Context) -> ScenarioResult:
    tenants, rules, every_s = ctx.pick((10, 20, 4), (50, 40, 22))
    phase_s = _phase_s(ctx, 30.0, 600.0)
    url = ctx.databases.url("sqlite")
    assert url is not None
    checkout = os.environ.get("BENCH_CHECKOUT")
    system = "cadenza (one process, BENCH_CHECKOUT)" if checkout else "cadenza (processes)"
    settings = {"CADENZA_ADMIN_TOKEN": ADMIN_TOKEN, "CADENZA_LOG_LEVEL": "warning"}
    if checkout:
        settings["PYTHONPATH"] = checkout
    rec = Recorder()
    case_base = f"sqlite, {tenants * rules} rules every {every_s}s"
    with serving(url, ctx.work_dir / "soak-serve.log", settings) as served:
        made = await _tenants(served, tenants, rules, every_s)
        db = await open_database(url)
        size_before, began = _db_bytes(url), datetime.now(UTC)
        try:
            await asyncio.sleep(2 * every_s)  # every rule's first occurrence has come
            for clients in CLIENTS:
                ctx.log(f"  soak: {clients} API clients for {phase_s:.0f} s")
                case = f"{case_base}, {clients} API clients"
                start = datetime.now(UTC)
                found = await api_load.load(served.base_url, made, clients, phase_s)
                await _phase_figures(db, start, datetime.now(UTC), case, system, rec)
                _api_figures(found, phase_s, case, system, rec)
                rec.add(case, system, "RSS, serve's processes", "MB", served.rss_bytes()[0] / 2**20)
            peer_note = await _list_against_peer(
                ctx,
                served,
                url,
                made,
                f"{case_base}, {PEER_CLIENTS} API clients, list only",
                system,
                rec,
            )
            ended = datetime.now(UTC)
            await asyncio.sleep(every_s + 5)  # the last occurrences are recorded
            expected, recorded, doubled = await _loss_check(
                db, ended - timedelta(seconds=every_s), every_s
            )
        finally:
            await db.dispose()
        hours = (ended - began).total_seconds() / 3600
        rec.add(
            case_base,
            system,
            "database growth",
            "MB/h",
            (_db_bytes(url) - size_before) / 2**20 / hours,
        )
    rec.add(case_base, system, "occurrences expected", "occurrences", expected)
    rec.add(case_base, system, "occurrences recorded", "occurrences", recorded)
    rec.add(case_base, system, "occurrences missing", "occurrences", expected - recorded)
    rec.add(case_base, system, "occurrences doubled", "occurrences", doubled)
    lost = expected != recorded or doubled
    return ScenarioResult(
        "soak",
        Status.PARTIAL if lost else Status.OK,
        params={
            "tenants": tenants,
            "rules": tenants * rules,
            "every_s": every_s,
            "phase_s": phase_s,
        },
        notes=[
            f"loss check: {expected} expected, {recorded} recorded, {doubled} doubled",
            peer_note,
        ],
        figures=rec.figures(),
    )
