"""`cadenza worker`: the engine alone, without the API. Several workers (and `serve`
processes) may share one PostgreSQL; each runs the tenants it holds a lease on."""

from __future__ import annotations

import asyncio
import signal
from dataclasses import replace

import click

from api.app import engine_config
from api.cli.common import (
    db_option,
    freeze_startup_heap,
    log_format_option,
    open_node_database,
    run_async,
    settings_from,
)
from engine.service import EngineService
from sandbox import Sandbox, SandboxConfig
from tenants.db import describe_url


async def _until_signalled() -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    await stop.wait()


@click.command()
@db_option
@click.option(
    "--no-tenant-leases",
    is_flag=True,
    help="Compete for every tenant's actions instead of leasing tenants (for testing claims).",
)
@log_format_option
@run_async
async def worker(database_url: str | None, no_tenant_leases: bool, log_format: str | None) -> None:
    """Run the engine (timer loops, sweeper, webhook delivery, retention) until stopped."""
    settings = settings_from(database_url=database_url, log_format=log_format)
    db, box = await open_node_database(settings)
    try:
        async with Sandbox(SandboxConfig(max_workers=settings.max_concurrency)) as sandbox:
            config = replace(engine_config(settings), use_tenant_leases=not no_tenant_leases)
            service = EngineService(db, sandbox, config, secrets=box)
            await service.start()
            freeze_startup_heap()
            click.echo(
                f"worker {settings.node_name} running on {describe_url(settings.database_url)}",
            )
            try:
                await _until_signalled()
            finally:
                await service.stop()
    finally:
        await db.dispose()
