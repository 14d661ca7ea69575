"""scale: many rules over many tenants on SQLite: load, start, RSS, idle CPU, API list p99.

The rules are bulk-inserted (the load time is that of the insert, reported for context);
then `cadenza serve` starts on the database once per repeat: time until /readyz, resident
memory, CPU used while nothing is due, and the latency of `GET /v1/rules` for sampled tenants
(400 requests in full mode, fewer if they take more than 15 s: the count is reported).
"""

from __future__ import annotations

import asyncio
import time

import httpx

from bench.context import Context
from bench.population import populate
from bench.results import Recorder, ScenarioResult, Status
from bench.server import Served, serving
from bench.stats import percentile
from engine.store import schema
from tenants.connect import open_database
from tenants.keys import create_key

SAMPLED_TENANTS = 20


async def _keys(url: str, tenant_ids: list[str]) -> list[str]:
    """Migrate the database and issue a viewer key for a sample of tenants."""
    db = await open_database(url)
    try:
        await schema.upgrade(db)
        if not tenant_ids:
            return []
        step = max(1, len(tenant_ids) // SAMPLED_TENANTS)
        async with db.begin() as conn:
            issued = [await create_key(conn, t, "viewer") for t in tenant_ids[::step]]
        return [key.secret for key in issued][:SAMPLED_TENANTS]
    finally:
        await db.dispose()


async def _list_latencies_ms(
    served: Served, keys: list[str], requests: int, budget_s: float
) -> list[float] | str:
    """Latency of GET /v1/rules?limit=50, keys taken round robin, until `requests` were made or
    `budget_s` has passed; a string says what failed."""
    latencies: list[float] = []
    deadline = time.monotonic() + budget_s
    async with httpx.AsyncClient(base_url=served.base_url, timeout=30) as client:
        for index in range(requests):
            if time.monotonic() > deadline:
                break
            headers = {"Authorization": f"Bearer {keys[index % len(keys)]}"}
            started = time.perf_counter()
            response = await client.get("/v1/rules", params={"limit": 50}, headers=headers)
            latencies.append((time.perf_counter() - started) * 1000)
            if response.status_code != 200:
                return f"GET /v1/rules answered {response.status_code}: {response.text[:200]}"
    return latencies


async def _measure(
    ctx: Context, served: Served, keys: list[str], case: str, rec: Recorder
) -> str | None:
    rec.add(case, "cadenza", "start until ready", "s", served.ready_s)
    await asyncio.sleep(ctx.pick(1.0, 3.0))
    main_rss, tree_rss = served.rss_bytes()
    rec.add(case, "cadenza", "RSS, server process", "MB", main_rss / 2**20)
    rec.add(case, "cadenza", "RSS, with sandbox workers", "MB", tree_rss / 2**20)
    idle_s = ctx.pick(2.0, 10.0)
    cpu_before = served.cpu_s()
    await asyncio.sleep(idle_s)
    rec.add(
        case, "cadenza", "idle CPU", "% of a core", (served.cpu_s() - cpu_before) / idle_s * 100
    )
    latencies = await _list_latencies_ms(served, keys, ctx.pick(100, 400), ctx.pick(5.0, 15.0))
    if isinstance(latencies, str):
        return latencies
    rec.add(case, "cadenza", "API list requests timed", "requests", len(latencies))
    rec.add(case, "cadenza", "API list p50", "ms", percentile(latencies, 50))
    rec.add(case, "cadenza", "API list p99", "ms", percentile(latencies, 99))
    return None


async def run(ctx: Context) -> ScenarioResult:
    tenant_count, rule_count = ctx.pick((100, 10_000), (10_000, 1_000_000))
    case = f"sqlite, {rule_count} rules over {tenant_count} tenants"
    url = ctx.databases.url("sqlite")
    assert url is not None
    await _keys(url, [])
    started = time.monotonic()
    ctx.log(f"  scale: inserting {rule_count} rules")
    tenant_ids = await asyncio.to_thread(populate, url, tenant_count, rule_count)
    recorder = Recorder()
    recorder.add(
        case, "bulk insert", "load (insert rules + actions)", "s", time.monotonic() - started
    )
    keys = await _keys(url, tenant_ids)
    notes: list[str] = []
    for repeat in range(ctx.light_repeats):
        ctx.log(f"  scale: serve repeat {repeat + 1}")
        with serving(url, ctx.work_dir / "scale-serve.log") as served:
            if (
                problem := await _measure(ctx, served, keys, case, recorder)
            ) and problem not in notes:
                notes.append(problem)
    return ScenarioResult(
        "scale",
        Status.PARTIAL if notes else Status.OK,
        params={"tenants": tenant_count, "rules": rule_count, "sampled_tenants": len(keys)},
        notes=notes,
        figures=recorder.figures(),
    )
