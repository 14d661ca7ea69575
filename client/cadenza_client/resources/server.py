"""`/healthz`, `/readyz`, `/metrics`, `/openapi.json`: the server itself (no key needed)."""

from __future__ import annotations

from typing import Any

import httpx

from cadenza_client.call import Call, Route, reading, text
from cadenza_client.endpoint import Resource, S, operation
from cadenza_client.models.base import Record

UNAVAILABLE = 503


class Health(Record):
    """`ok` when the process is up; `ready` when its database answers and is migrated."""

    status: str
    detail: str | None = None


def _document(response: httpx.Response) -> dict[str, Any]:
    document: dict[str, Any] = response.json()
    return document


class Server(Resource[S]):
    """The process serving the API."""

    @operation("GET", "/healthz")
    def health(route: Route) -> Call[Health]:
        """Whether the process is up (`status` "ok")."""
        return route.call(reading(Health))

    @operation("GET", "/readyz")
    def ready(route: Route) -> Call[Health]:
        """Whether it can serve: `status` "ready", or "unavailable" with `detail` (not raised)."""
        return route.call(reading(Health), answers=frozenset({UNAVAILABLE}))

    @operation("GET", "/metrics")
    def metrics(route: Route) -> Call[str]:
        """The Prometheus text exposition."""
        return route.call(text)

    @operation("GET", "/openapi.json")
    def openapi(route: Route) -> Call[dict[str, Any]]:
        """The OpenAPI document of the server's API (a JSON document, as a dict)."""
        return route.call(_document)
