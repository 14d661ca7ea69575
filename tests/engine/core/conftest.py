"""Fixtures of the engine tests: a started sandbox, a tenant, a service on the test database.

A sandbox's zygote is a process that loads the runtimes before it forks any worker, and it is
bound to the event loop it started on; one per test was most of these tests' CPU. So the
sandboxes are shared by the tests of one module, and every async test and fixture here runs on
its module's event loop. Sharing one hides nothing between tests: each test has its own
database and a tenant of a new random id (a warm worker only ever serves its own tenant), and
what a test leaves running on the loop is cancelled when it ends, as closing its own loop did.
A test that kills sandbox processes or counts workers must start a sandbox of its own.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from capability_trials import every_runtime, host_product, policy  # noqa: F401  (fixtures)
from http_trials import both_pythons, stand_in  # noqa: F401  (fixtures)
from sqlalchemy.ext.asyncio import AsyncEngine
from support.db_engines import checked_engine
from support.moments import START
from support.sandbox_fixtures import python_sandbox, wasm_cache  # noqa: F401  (fixture)

from engine.clock import ManualClock
from engine.config import EngineConfig
from engine.service import EngineService
from sandbox import Sandbox
from tenants.registry import create_tenant
from tenants.secret_box import SecretBox

#: The mark that runs an async test on its module's event loop, with the module's sandboxes.
MODULE_LOOP = pytest.mark.asyncio(loop_scope="module")


def pytest_pycollect_makeitem(collector: pytest.Collector, name: str, obj: object) -> None:
    """Mark each async test of this package to run on its module's event loop (a module-wide
    `pytestmark` would also mark the sync tests, which pytest-asyncio warns about)."""
    if name.startswith("test") and _is_async_test(obj):
        MODULE_LOOP(obj)


def _is_async_test(obj: object) -> bool:
    inner = getattr(getattr(obj, "hypothesis", None), "inner_test", obj)
    return inspect.iscoroutinefunction(inner)


@pytest_asyncio.fixture(loop_scope="module", autouse=True)
async def _leftover_tasks_cancelled() -> AsyncIterator[None]:
    """Cancel the tasks a test left on the shared loop (a helper task of a fixture, a run not
    awaited), so that none of them runs on into the next test of the module."""
    yield
    current = asyncio.current_task()
    leftover = [task for task in asyncio.all_tasks() if task is not current]
    for task in leftover:
        task.cancel()
    await asyncio.gather(*leftover, return_exceptions=True)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def sandbox() -> AsyncIterator[Sandbox]:
    async with python_sandbox() as sb:
        yield sb


@pytest_asyncio.fixture(loop_scope="module")
async def db(database_url: str) -> AsyncIterator[AsyncEngine]:
    """The shared `db` fixture, on the module's event loop."""
    async with checked_engine(database_url) as engine:
        yield engine


@pytest_asyncio.fixture(loop_scope="module")
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


@pytest_asyncio.fixture(loop_scope="module")
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
