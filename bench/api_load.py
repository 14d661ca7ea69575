"""API clients for the soak: each loops over list, get, preview and submit (or the routes it is
given) until told to stop, and every answer's latency is kept by route (a non-2xx answer is
counted as an error). `peer list` is the bare Starlette peer's page of rules (`bench.peer_api`)."""

from __future__ import annotations

import asyncio
import itertools
import time
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import httpx

from bench.workload import TRIVIAL_PYTHON

ROUTES = ("list", "get", "preview", "submit")
PEER_LIST = "peer list"


@dataclass
class Latencies:
    """Milliseconds per route, and the errors seen."""

    ms: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: int = 0


@dataclass(frozen=True)
class Tenant:
    id: str
    key: str
    rule_ids: tuple[str, ...]


async def _one(client: httpx.AsyncClient, route: str, tenant: Tenant, n: int) -> httpx.Response:
    if route == "list":
        return await client.get("/v1/rules", params={"limit": 50})
    if route == PEER_LIST:
        return await client.get("/rules", params={"tenant_id": tenant.id, "limit": 50})
    if route == "get":
        return await client.get(f"/v1/rules/{tenant.rule_ids[n % len(tenant.rule_ids)]}")
    if route == "preview":
        return await client.post("/v1/preview", json={"schedule": "every weekday at 09:00"})
    run_at = (datetime.now(UTC) + timedelta(seconds=1)).isoformat()
    return await client.post("/v1/actions", json={"run_at": run_at, "code": TRIVIAL_PYTHON})


async def _client(
    base_url: str, tenant: Tenant, routes: tuple[str, ...], stop: asyncio.Event, into: Latencies
) -> None:
    headers = {"Authorization": f"Bearer {tenant.key}"}
    async with httpx.AsyncClient(base_url=base_url, headers=headers, timeout=60) as client:
        for n in itertools.count():
            if stop.is_set():
                return
            route = routes[n % len(routes)]
            began = time.perf_counter()
            answer = await _one(client, route, tenant, n)
            # The peer's page is figured as `list`, beside the route it stands for.
            into.ms[route.removeprefix("peer ")].append((time.perf_counter() - began) * 1000)
            into.errors += answer.status_code >= 300


async def load(
    base_url: str,
    tenants: list[Tenant],
    clients: int,
    duration_s: float,
    routes: tuple[str, ...] = ROUTES,
) -> Latencies:
    """`clients` concurrent clients (tenants round robin) over `routes` for `duration_s`."""
    into = Latencies()
    stop = asyncio.Event()
    tasks = [
        asyncio.create_task(_client(base_url, tenants[i % len(tenants)], routes, stop, into))
        for i in range(clients)
    ]
    await asyncio.sleep(duration_s)
    stop.set()
    await asyncio.gather(*tasks)
    return into
