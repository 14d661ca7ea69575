"""`/metrics` is the operator's, and no request can add series: a flood of invented methods
and paths leaves the number of series (and the server's memory) where it was."""

from __future__ import annotations

import random
import re
import string
from concurrent.futures import ThreadPoolExecutor

import httpx
import psutil
from prometheus_client.parser import text_string_to_metric_families
from support.api_servers import SQLITE_SERVER_ONLY
from support.processes import Server

#: Invented paths and methods: an unbounded label set would add about a series each, forty
#: times what the test allows.
FLOOD = 400
WARM_UP = 300
#: Resident memory a flood may add (allocator noise, caches warming). The series count is
#: the sharp check; this one catches a leak of another kind that grows by more than about
#: sixty kilobytes a request.
RSS_GROWTH_LIMIT_BYTES = 24 * 1024 * 1024
METHODS = {"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "other"}


def _series(operator: httpx.Client) -> set[tuple[str, tuple[tuple[str, str], ...]]]:
    """Each metric family's label sets (a histogram's buckets, count and sum are one)."""
    response = operator.get("/metrics")
    assert response.status_code == 200, response.text
    return {
        (family.name, tuple(sorted((k, v) for k, v in sample.labels.items() if k != "le")))
        for family in text_string_to_metric_families(response.text)
        for sample in family.samples
    }


def _invented(rng: random.Random) -> tuple[str, str]:
    """A random method token and a random path: ids, junk segments, encodings, long ones."""
    method = rng.choice(
        [
            "".join(rng.choices(string.ascii_uppercase + string.digits, k=rng.randint(1, 12))),
            rng.choice(["GET", "POST", "PATCH", "DELETE", "PUT", "HEAD", "OPTIONS"]),
        ]
    )
    segment = "".join(
        rng.choices(string.ascii_letters + string.digits + "-_.~%", k=rng.randint(1, 30))
    )
    path = rng.choice(
        [
            f"/v1/rules/{segment}",
            f"/v1/rules/r_{segment}/runs",
            f"/{segment}",
            f"/v1/{segment}/{segment}",
            f"/v1/kv/{segment}",
            f"/ui/{segment}",
            "/" + "/".join([segment] * rng.randint(1, 20)),
        ]
    )
    return method, path.replace("%", "%25")


def _flood(base_url: str, count: int, seed: int) -> set[int]:
    rng = random.Random(seed)
    statuses = set()
    with httpx.Client(base_url=base_url, timeout=30) as client:
        for _ in range(count):
            method, path = _invented(rng)
            statuses.add(client.request(method, path).status_code)
    return statuses


def _flood_in_parallel(base_url: str, count: int, seed: int) -> set[int]:
    with ThreadPoolExecutor(4) as pool:
        parts = pool.map(lambda n: _flood(base_url, count // 4, seed + n), range(4))
        return set().union(*parts)


def _tree_rss_bytes(pid: int) -> int:
    """Resident memory of `serve` with its engine and API processes (not the sandbox's)."""
    root = psutil.Process(pid)
    return sum(p.memory_info().rss for p in [root, *root.children()])


def test_metrics_need_the_operator_token(
    http: httpx.Client, operator: httpx.Client, new_tenant, problem
) -> None:
    problem(http.get("/metrics"), 401, "unauthorized")
    tenant = new_tenant()
    problem(tenant.admin.get("/metrics"), 401, "unauthorized")  # a tenant key is not enough
    assert "cadenza_runs_total" in operator.get("/metrics").text


@SQLITE_SERVER_ONLY  # the HTTP layer's series, not the store's
def test_a_flood_of_invented_methods_and_paths_adds_no_series(
    server: Server, operator: httpx.Client
) -> None:
    _flood_in_parallel(server.base_url, WARM_UP, seed=1)  # every label value a flood can reach
    before = _series(operator)
    rss_before = _tree_rss_bytes(server.process.pid)
    statuses = _flood_in_parallel(server.base_url, FLOOD, seed=2)
    after = _series(operator)
    rss_after = _tree_rss_bytes(server.process.pid)
    assert statuses and all(status < 500 for status in statuses), statuses
    http_before = {s for s in before if s[0].startswith("cadenza_http_")}
    http_after = {s for s in after if s[0].startswith("cadenza_http_")}
    # A route or status the warm-up did not meet may add its few label sets; invented labels
    # would have added hundreds.
    assert len(http_after - http_before) <= 10, sorted(http_after - http_before)[:10]
    templates = set(operator.get("/openapi.json").json()["paths"]) | {"unmatched"}
    for _, labels in http_after:
        values = dict(labels)
        assert values.get("method", "GET") in METHODS, values
        route = re.sub(r":\w+\}", "}", values.get("route", "unmatched"))  # {key:path}
        assert route in templates, values
    assert rss_after - rss_before < RSS_GROWTH_LIMIT_BYTES, (rss_before, rss_after)
