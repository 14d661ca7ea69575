"""The audit log through the typed client, sync and async, against a live server."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest
from cadenza_client import (
    AsyncClient,
    AuditEntry,
    AuditFilter,
    Client,
    Forbidden,
    RetryPolicy,
    Role,
)
from support.client_tenants import Tenant
from support.processes import Server


def test_admin_lists_filters_and_pages_the_log(tenant: Tenant, connect: Callable[..., Client]):
    admin, editor = connect(tenant.keys[Role.ADMIN]), connect(tenant.keys[Role.EDITOR])
    for n in range(3):
        editor.kv.put(f"item-{n}", n)

    data = list(admin.audit.list(AuditFilter(object_kind="data"), limit=2))
    one = admin.audit.page(AuditFilter(object_id="item-1"))

    assert [(e.object_id, e.method) for e in data] == [(f"item-{n}", "PUT") for n in range(3)]
    assert all(isinstance(e, AuditEntry) and e.actor.startswith("k_") for e in data)
    assert [e.id for e in one.items] == [data[1].id]
    later = admin.audit.page(AuditFilter(since=data[2].at + timedelta(seconds=1)))
    assert not later.items
    with pytest.raises(Forbidden):
        editor.audit.page()


def test_operator_reads_a_tenants_log(tenant: Tenant, operator: Client) -> None:
    entries = list(operator.tenant_audit.list(tenant.id, AuditFilter(actor="operator")))
    assert [(e.method, e.object_kind, e.object_id) for e in entries] == [
        ("POST", "tenant", tenant.id)
    ]


async def test_async_client_reads_the_log(tenant: Tenant, client_server: Server) -> None:
    no_retry = RetryPolicy(max_retries=0)
    async with AsyncClient(client_server.base_url, tenant.keys[Role.ADMIN], retry=no_retry) as c:
        await c.kv.put("async-item", {"n": 1})
        found = [e async for e in c.audit.list(AuditFilter(object_id="async-item"))]
    assert [(e.object_kind, e.route) for e in found] == [("data", "/v1/kv/{key}")]
