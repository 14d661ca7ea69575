"""Fixtures of the engine tests: a started sandbox, a tenant, a service on the test database."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from capability_trials import every_runtime, host_product, policy  # noqa: F401  (fixtures)
from http_trials import both_pythons, stand_in  # noqa: F401  (fixtures)
from sqlalchemy.ext.asyncio import AsyncEngine
from support.moments import START

from engine.clock import ManualClock
from engine.config import EngineConfig
from engine.service import EngineService
from sandbox import RuntimeName, Sandbox, SandboxConfig
from tenants.registry import create_tenant
from tenants.secret_box import SecretBox


@pytest.fixture
async def sandbox() -> AsyncIterator[Sandbox]:
    async with Sandbox(SandboxConfig(max_workers=2, runtimes=(RuntimeName.PYTHON,))) as sb:
        yield sb


@pytest.fixture
async def tenant_id(db: AsyncEngine) -> str:
    async with db.begin() as conn:
        tenant, _ = await create_tenant(conn, "acme")
    return tenant.id


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(START)


@pytest.fixture
def engine_config() -> EngineConfig:
    return EngineConfig(node_name="test-node", max_concurrency=2, wake_cap_s=0.2)


@pytest.fixture
async def service(
    db: AsyncEngine,
    sandbox: Sandbox,
    engine_config: EngineConfig,
    clock: ManualClock,
    secret_box: SecretBox,
) -> AsyncIterator[EngineService]:
    svc = EngineService(db, sandbox, engine_config, clock, secret_box)
    try:
        yield svc
    finally:
        await svc.stop()
