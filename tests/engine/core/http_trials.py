"""Test runs of scripts that make HTTP requests: a stand-in server, a sandbox of both Python
runtimes, the tenant's allow-list, and one test run through the engine (`engine.runs.trial`)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio
from sqlalchemy.ext.asyncio import AsyncEngine
from support.stand_in import StandIn
from support.threaded_server import serving

from engine.clock import ManualClock
from engine.config import EngineConfig, HttpPolicy
from engine.deps import Deps
from engine.runs.trial import TrialResult
from engine.runs.trial import test_run as trial_run
from sandbox import RuntimeName, Sandbox, SandboxConfig
from tenants import http_allowlist
from tenants.secret_box import SecretBox

LOOPBACK_ALLOWED = HttpPolicy(schemes=frozenset({"http"}), allow_private=True)


@pytest.fixture
def stand_in() -> Iterator[StandIn]:
    server = StandIn()
    with serving(server.server):
        yield server


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def both_pythons(wasm_cache: Path) -> AsyncIterator[Sandbox]:
    """A sandbox of the `python` and `micropython` runtimes, shared by the module's tests (see
    conftest.py)."""
    runtimes = (RuntimeName.PYTHON, RuntimeName.MICROPYTHON)
    config = SandboxConfig(max_workers=2, runtimes=runtimes, cache_dir=wasm_cache)
    async with Sandbox(config) as box:
        yield box


async def allow(db: AsyncEngine, tenant_id: str, *entries: str) -> None:
    async with db.begin() as conn:
        await http_allowlist.put(conn, tenant_id, entries, {"http"})


async def trial(
    db: AsyncEngine,
    sandbox: Sandbox,
    secret_box: SecretBox,
    clock: ManualClock,
    tenant_id: str,
    code: str,
    policy: HttpPolicy = LOOPBACK_ALLOWED,
    runtime: str = "python",
    params: dict[str, object] | None = None,
    timeout_ms: int = 5000,
) -> TrialResult:
    """One test run of `code`; it must end ok."""
    deps = Deps(db, sandbox, EngineConfig(http=policy), clock, lambda _: None, secret_box)
    found = await trial_run(
        deps,
        tenant_id,
        code=code,
        runtime=runtime,
        params=params or {},
        timeout_ms=timeout_ms,
        memory_mb=128,
    )
    assert found.outcome.status == "ok", found.outcome.error
    return found
