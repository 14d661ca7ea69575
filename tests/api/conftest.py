"""One real `cadenza serve` per database kind and test process, shared with the client tests.

Tests never share a tenant: each asks `new_tenant` for a fresh one (through the operator API),
so they cannot see each other's objects, and a test process starts two servers in all.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from support.api_servers import KINDS, shared_server
from support.operator import ADMIN_TOKEN
from support.polling import until
from support.processes import Server


@pytest.fixture(params=KINDS)
def server(request: pytest.FixtureRequest) -> Server:
    """The shared server of each database kind, up for the whole session."""
    return shared_server(request)


@pytest.fixture
def http(server: Server) -> Iterator[httpx.Client]:
    """An unauthenticated client of the server."""
    with httpx.Client(base_url=server.base_url, timeout=30) as client:
        yield client


@pytest.fixture
def operator(server: Server) -> Iterator[httpx.Client]:
    """A client holding the operator token."""
    headers = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
    with httpx.Client(base_url=server.base_url, headers=headers, timeout=30) as client:
        yield client


@dataclass
class TenantClients:
    """A fresh tenant and a client for each role (admin, editor, viewer)."""

    id: str
    name: str
    admin: httpx.Client
    editor: httpx.Client
    viewer: httpx.Client
    keys: dict[str, str]


def _client(server: Server, secret: str) -> httpx.Client:
    headers = {"Authorization": f"Bearer {secret}"}
    return httpx.Client(base_url=server.base_url, headers=headers, timeout=30)


@pytest.fixture
def new_tenant(server: Server, operator: httpx.Client) -> Iterator[Callable[..., TenantClients]]:
    """Make tenants with a key per role; `quotas` are set by the operator at creation."""
    made: list[TenantClients] = []

    def make(quotas: dict[str, object] | None = None) -> TenantClients:
        name = f"t-{uuid.uuid4().hex[:12]}"
        body: dict[str, object] = {"name": name}
        if quotas:
            body["quotas"] = quotas
        created = operator.post("/v1/admin/tenants", json=body)
        assert created.status_code == 201, created.text
        admin_key = created.json()["api_key"]
        admin = _client(server, admin_key)
        keys = {"admin": admin_key}
        for role in ("editor", "viewer"):
            issued = admin.post("/v1/keys", json={"role": role, "name": role})
            assert issued.status_code == 201, issued.text
            keys[role] = issued.json()["secret"]
        clients = TenantClients(
            id=created.json()["id"],
            name=name,
            admin=admin,
            editor=_client(server, keys["editor"]),
            viewer=_client(server, keys["viewer"]),
            keys=keys,
        )
        made.append(clients)
        return clients

    yield make
    for tenant in made:
        for client in (tenant.admin, tenant.editor, tenant.viewer):
            client.close()


def assert_problem(response: httpx.Response, status: int, type_slug: str | None = None) -> dict:
    """The response is an RFC 9457 problem with `status` (and `type` /problems/<slug>)."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    body = response.json()
    assert body["status"] == status and body["detail"] and body["title"]
    if type_slug is not None:
        assert body["type"] == f"/problems/{type_slug}", body
    return body


@pytest.fixture
def problem() -> Callable[..., dict]:
    return assert_problem


@pytest.fixture
def wait_for() -> Callable[..., Any]:
    """Poll a probe until it returns something truthy (`support.polling.until`)."""
    return until
