"""The engine node as `cadenza worker` and `serve`'s engine process both run it: a sandbox, the
node's loops, and a clean stop at SIGTERM (a second signal cuts the drain short)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from sqlalchemy.ext.asyncio import AsyncEngine

from api.cli.common import freeze_startup_heap, start_engine
from api.cli.paths import sandbox_cache_dir
from api.cli.signals import StopSignals
from api.settings import Settings
from engine.config import EngineConfig
from engine.service import EngineService
from sandbox import Sandbox, SandboxConfig
from tenants.secret_box import SecretBox


@asynccontextmanager
async def running_node(
    settings: Settings, db: AsyncEngine, box: SecretBox, config: EngineConfig
) -> AsyncIterator[tuple[EngineService, StopSignals]]:
    """Start the node; yield it with the stop signals to await; stop it (draining for up to
    `stop_grace_s`) when the block ends, however it ends."""
    sandbox_config = SandboxConfig(
        max_workers=settings.max_concurrency, cache_dir=sandbox_cache_dir()
    )
    async with Sandbox(sandbox_config) as sandbox:
        service = EngineService(db, sandbox, config, secrets=box)
        signals = StopSignals()
        signals.on_second = service.hurry
        await start_engine(service)
        freeze_startup_heap()
        try:
            yield service, signals
        finally:
            await service.stop(settings.stop_grace_s)
