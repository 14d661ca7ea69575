"""Test runs of scripts that call capabilities: the stand-in product, a registry of its
capabilities and the plugin's entry points, grants, and one test run through the engine."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from dataclasses import replace
from pathlib import Path

import pytest
import pytest_asyncio
from sqlalchemy.ext.asyncio import AsyncEngine
from support.host_product import IN_PROCESS, PLUGIN_DIR, SIGNING_KEY, HostProduct
from support.moments import START
from support.threaded_server import serving

from engine.capabilities.specs import CapabilityPolicy, specs_from_json
from engine.clock import ManualClock
from engine.config import EngineConfig
from engine.deps import Deps
from engine.runs.trial import TrialResult
from engine.runs.trial import test_run as trial_run
from sandbox import RuntimeName, Sandbox, SandboxConfig
from tenants import capability_grants
from tenants.secret_box import SecretBox


@pytest.fixture
def host_product() -> Iterator[HostProduct]:
    product = HostProduct()
    with serving(product.server):
        yield product
        product.release.set()


@pytest.fixture
def policy(host_product: HostProduct, monkeypatch: pytest.MonkeyPatch) -> CapabilityPolicy:
    """Every capability of the stand-in and of the plugin (found on sys.path)."""
    monkeypatch.syspath_prepend(str(PLUGIN_DIR))
    document = host_product.registry()
    specs = specs_from_json({"capabilities": document["capabilities"] + IN_PROCESS})
    return CapabilityPolicy(specs=specs, signing_key=SIGNING_KEY, max_calls_per_minute=1000)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def every_runtime(wasm_cache: Path) -> AsyncIterator[Sandbox]:
    """A sandbox of every runtime, shared by the module's tests (see conftest.py)."""
    runtimes = (RuntimeName.PYTHON, RuntimeName.MICROPYTHON, RuntimeName.WASM)
    config = SandboxConfig(max_workers=2, runtimes=runtimes, cache_dir=wasm_cache)
    async with Sandbox(config) as box:
        yield box


async def grant(db: AsyncEngine, tenant_id: str, *names: str) -> None:
    async with db.begin() as conn:
        for name in names:
            await capability_grants.grant(conn, tenant_id, name, START)


def deps_of(
    db: AsyncEngine,
    sandbox: Sandbox,
    secret_box: SecretBox,
    clock: ManualClock,
    policy: CapabilityPolicy,
    **bounds: int,
) -> Deps:
    """Deps whose engine performs `policy`'s capabilities, with `bounds` on calls."""
    config = EngineConfig(capabilities=replace(policy, **bounds))
    return Deps(db, sandbox, config, clock, lambda _: None, secret_box)


async def trial(deps: Deps, tenant_id: str, code: str, runtime: str = "python") -> TrialResult:
    """One test run of `code`; it must end ok."""
    found = await trial_run(
        deps, tenant_id, code=code, runtime=runtime, params={}, timeout_ms=5000, memory_mb=128
    )
    assert found.outcome.status == "ok", found.outcome.error
    return found
