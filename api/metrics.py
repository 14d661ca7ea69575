"""HTTP metrics for Prometheus: requests by method, route template and status, and latency.

Every label comes from a closed set, so no request can add series: routes are labelled by
their template (`/v1/rules/{rule_id}`), never the raw path, and paths no route serves share
the label `unmatched`; methods outside the standard set count as `other`; statuses are the
codes this server answers with. Authentication failures and throttled clients are counted
here too (`AUTH_FAILURES`, `AUTH_THROTTLED`), by kind of credential only.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

from prometheus_client import Counter, Histogram
from starlette.types import ASGIApp, Message, Receive, Scope, Send

REQUESTS = Counter(
    "cadenza_http_requests_total", "API requests answered.", ["method", "route", "status"]
)
DURATION = Histogram(
    "cadenza_http_request_duration_seconds", "Time to answer an API request.", ["method", "route"]
)
AUTH_FAILURES = Counter(
    "cadenza_auth_failures_total",
    "Failed authentications, by credential (api_key, operator_token).",
    ["credential"],
)
AUTH_THROTTLED = Counter(
    "cadenza_auth_throttled_total",
    "Requests refused (429) because their client address failed to authenticate too often.",
    ["credential"],
)
#: The methods counted under their own name; any other is `other`.
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
UNMATCHED = "unmatched"


@dataclass(frozen=True)
class RouteShape:
    """One route's template, its compiled pattern and its methods."""

    path: str
    pattern: re.Pattern[str]
    methods: frozenset[str]

    @property
    def is_literal(self) -> bool:
        return "{" not in self.path


def route_of(shapes: list[RouteShape], path: str) -> list[RouteShape]:
    """The routes serving `path`; a literal path (/v1/rules/validate) wins over templates."""
    matching = [shape for shape in shapes if shape.pattern.match(path)]
    return [shape for shape in matching if shape.is_literal] or matching


class RequestMetrics:
    """ASGI middleware counting every answered request."""

    def __init__(self, app: ASGIApp, shapes: list[RouteShape]) -> None:
        self.app = app
        self.shapes = shapes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        status = ["500"]

        async def record(message: Message) -> None:
            if message["type"] == "http.response.start":
                status[0] = str(message["status"])
            await send(message)

        started_s = time.perf_counter()
        try:
            await self.app(scope, receive, record)
        finally:
            found = route_of(self.shapes, scope["path"])
            route = found[0].path if found else UNMATCHED
            method = scope["method"] if scope["method"] in METHODS else "other"
            REQUESTS.labels(method, route, status[0]).inc()
            DURATION.labels(method, route).observe(time.perf_counter() - started_s)
