"""The client's tests reach the shared `cadenza serve` of each database kind (the API tests'
too) only through the client itself: tenants are made with the operator token, each test gets
fresh ones."""

from __future__ import annotations

import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest
from cadenza_client import AsyncClient, Client, QuotaChanges, RetryPolicy, Role
from support.api_servers import KINDS, shared_server
from support.client_tenants import Tenant
from support.operator import ADMIN_TOKEN
from support.processes import Server

#: Tests see every error at once: retries are the subject of their own tests only.
NO_RETRY = RetryPolicy(max_retries=0)


@pytest.fixture(params=KINDS)
def client_server(request: pytest.FixtureRequest) -> Server:
    """The shared server of each database kind (`support.api_servers.shared_server`), with the
    operator API open."""
    return shared_server(request)


@pytest.fixture
def operator(client_server: Server) -> Iterator[Client]:
    """A client holding the operator token."""
    with Client(client_server.base_url, ADMIN_TOKEN, retry=NO_RETRY) as client:
        yield client


@pytest.fixture
def new_tenant(operator: Client, client_server: Server) -> Callable[..., Tenant]:
    """Make a tenant (with `quotas`) and an editor and a viewer key beside its admin key."""

    def make(quotas: QuotaChanges | None = None) -> Tenant:
        created = operator.tenants.create(f"c-{uuid.uuid4().hex[:12]}", quotas=quotas)
        keys = {Role.ADMIN: created.api_key}
        with Client(client_server.base_url, created.api_key, retry=NO_RETRY) as admin:
            for role in (Role.EDITOR, Role.VIEWER):
                keys[role] = admin.keys.create(role=role, name=role.value).secret
        return Tenant(created.id, created.name, keys)

    return make


@pytest.fixture
def tenant(new_tenant: Callable[..., Tenant]) -> Tenant:
    return new_tenant()


@pytest.fixture
def connect(client_server: Server) -> Iterator[Callable[..., Client]]:
    """Clients of the server with a given key, closed after the test."""
    made: list[Client] = []

    def make(key: str | None, retry: RetryPolicy = NO_RETRY) -> Client:
        made.append(Client(client_server.base_url, key, retry=retry))
        return made[-1]

    yield make
    for client in made:
        client.close()


@pytest.fixture
def editor(tenant: Tenant, connect: Callable[..., Client]) -> Client:
    """An editor of a fresh tenant."""
    return connect(tenant.keys[Role.EDITOR])


@pytest.fixture
async def async_editor(tenant: Tenant, client_server: Server) -> AsyncIterator[AsyncClient]:
    """The async client, as an editor of a fresh tenant."""
    async with AsyncClient(
        client_server.base_url, tenant.keys[Role.EDITOR], retry=NO_RETRY
    ) as client:
        yield client


@pytest.fixture
def eventually() -> Callable[..., Any]:
    """Ask `probe` until it answers something truthy; fail after `timeout_s`.

    The engine runs actions on its own schedule; the short pause between questions only spares
    the server, it synchronises nothing.
    """

    def ask(probe: Callable[[], Any], timeout_s: float = 30.0) -> Any:
        deadline = time.monotonic() + timeout_s
        while (found := probe()) is None or found is False or found == []:
            assert time.monotonic() < deadline, f"no answer within {timeout_s} s"
            time.sleep(0.1)
        return found

    return ask
