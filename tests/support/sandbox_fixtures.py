"""Fixtures and helpers shared by tests/sandbox and tests/security (loaded by both conftests)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest
import pytest_asyncio

from sandbox import Limits, Outcome, RuntimeName, Sandbox, SandboxConfig, ScriptContext
from sandbox.memory_host import MemoryHost


def python_sandbox() -> Sandbox:
    """The engine tests' sandbox: python only, two workers (enter it with `async with`)."""
    return Sandbox(SandboxConfig(max_workers=2, runtimes=(RuntimeName.PYTHON,)))


@pytest.fixture(scope="session")
def wasm_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Compiled modules shared by every module's sandbox (MicroPython compiles once)."""
    return tmp_path_factory.mktemp("wasm-cache")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def sandbox(wasm_cache: Path) -> AsyncIterator[Sandbox]:
    async with Sandbox(SandboxConfig(max_workers=2, cache_dir=wasm_cache)) as box:
        yield box


@pytest.fixture
def context() -> ScriptContext:
    return ScriptContext(
        tenant_id="t-1",
        rule_id="r-1",
        rule_name="daily summary",
        scheduled_at=datetime(2026, 11, 23, 9, 0, tzinfo=UTC),
        attempt=1,
        params={"threshold": 10},
        occurrence_id="occ-1",
    )


Run = Callable[..., Awaitable[Outcome]]


@pytest.fixture
def run(sandbox: Sandbox, context: ScriptContext) -> Run:
    """`await run("python", script, limits=..., host=..., tenant_id=...)`: one run in the shared
    sandbox, as the `context` fixture's tenant unless `tenant_id` names another."""

    async def run_once(
        runtime: str,
        script: str | bytes,
        limits: Limits | None = None,
        host: MemoryHost | None = None,
        tenant_id: str | None = None,
    ) -> Outcome:
        chosen = limits or Limits()
        ctx = context if tenant_id is None else replace(context, tenant_id=tenant_id)
        return await sandbox.runtime(runtime).run(script, ctx, chosen, host or MemoryHost())

    return run_once


def body(*lines: str) -> str:
    """A `main(ctx)` whose body is `lines` (each indented once)."""
    return "def main(ctx):\n" + "".join(f"    {line}\n" for line in lines)


#: A CPU bomb that catches every exception the runtime could raise inside it: only a limit
#: enforced from outside the script ends it.
CATCHING_CPU_LOOP = body(
    "while True:",
    "    try:",
    "        while True:",
    "            pass",
    "    except BaseException:",
    "        pass",
)
