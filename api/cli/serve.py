"""`cadenza serve`: the API, the engine and the UI in one process. SIGTERM stops the API,
then drains the engine (`api.cli.signals`)."""

from __future__ import annotations

import asyncio

import click
import uvicorn
from uvicorn.config import LOGGING_CONFIG

from api.app import create_app, engine_config
from api.cli.common import (
    configure_logging,
    db_option,
    freeze_startup_heap,
    log_format_option,
    open_migrated,
    run_async,
    settings_from,
    start_engine,
)
from api.cli.paths import sandbox_cache_dir
from api.cli.signals import StopSignals
from api.demo import add_demo_rule, ensure_demo_tenant
from engine.service import EngineService
from sandbox import Sandbox, SandboxConfig
from tenants.db import describe_url


@click.command()
@db_option
@click.option("--host", help="Address to listen on (default 127.0.0.1).")
@click.option("--port", type=int, help="Port to listen on (default 8000; 0 picks a free one).")
@click.option("--no-demo", is_flag=True, default=None, help="Do not create the demo tenant.")
@log_format_option
@run_async
async def serve(
    database_url: str | None,
    host: str | None,
    port: int | None,
    no_demo: bool | None,
    log_format: str | None,
) -> None:
    """Serve the REST API, the admin UI and the engine on one database."""
    settings = settings_from(
        database_url=database_url,
        host=host,
        port=port,
        demo=None if no_demo is None else False,
        log_format=log_format,
    )
    configure_logging(settings)
    db = await open_migrated(settings.database_url)
    try:
        issued = await ensure_demo_tenant(db) if settings.demo else None
        if issued is not None:
            click.echo(f"created tenant 'demo'; its admin API key (shown once): {issued.secret}")
        sandbox_config = SandboxConfig(
            max_workers=settings.max_concurrency, cache_dir=sandbox_cache_dir()
        )
        async with Sandbox(sandbox_config) as sandbox:
            service = EngineService(db, sandbox, engine_config(settings))
            if issued is not None:
                await add_demo_rule(service, issued)
            app = create_app(settings, db, service)
            config = uvicorn.Config(
                app,
                host=settings.host,
                port=settings.port,
                log_level=settings.log_level,
                # As JSON, uvicorn's records go to the one handler instead of its own.
                log_config=LOGGING_CONFIG if settings.log_format == "text" else None,
                lifespan="on",
            )
            server = uvicorn.Server(config)
            click.echo(
                f"serving {describe_url(settings.database_url)} on "
                f"http://{settings.host}:{settings.port}/ (admin UI at /ui/, API docs at /docs)"
            )
            signals = StopSignals()
            signals.on_second = service.hurry
            await start_engine(service)
            freeze_startup_heap()
            watcher = asyncio.create_task(_exit_on(signals, server), name="cadenza-stop-signal")
            try:
                await server.serve()
            finally:
                watcher.cancel()
                await service.stop(settings.stop_grace_s)
    finally:
        await db.dispose()


async def _exit_on(signals: StopSignals, server: uvicorn.Server) -> None:
    """A signal that came before uvicorn listened for its own still stops the server."""
    await signals.stopped()
    server.should_exit = True
