"""The operator token the API tests' servers are started with, and making tenants with it."""

from __future__ import annotations

import uuid
from typing import Any

import httpx

ADMIN_TOKEN = "operator-token-for-tests"
#: Quotas for tests that run a rule every second and poll the API often.
BUSY_QUOTAS = {"min_interval_s": 1, "allow_secondly": True, "requests_per_minute": 100_000}


def create_tenant_over_api(
    base_url: str, quotas: dict[str, Any] | None = None, token: str = ADMIN_TOKEN
) -> dict[str, Any]:
    """A fresh tenant made through the operator API (`token` is the server's operator token):
    its `id`, `name` and admin `api_key`."""
    created = httpx.post(
        f"{base_url}/v1/admin/tenants",
        json={"name": f"t-{uuid.uuid4().hex[:12]}", "quotas": quotas or {}},
        headers={"Authorization": f"Bearer {token}"},
        timeout=30,
    )
    assert created.status_code == 201, created.text
    return dict(created.json())


def tenant_client(base_url: str, api_key: str) -> httpx.Client:
    return httpx.Client(
        base_url=base_url, headers={"Authorization": f"Bearer {api_key}"}, timeout=60
    )
