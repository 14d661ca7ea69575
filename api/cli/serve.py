"""`cadenza serve`: the API, the engine and the UI in one process. SIGTERM stops the API,
then drains the engine (`api.cli.signals`)."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Iterator

import click
import uvicorn
from prometheus_client import start_http_server
from uvicorn.config import LOGGING_CONFIG

from api.app import create_app
from api.cli.common import (
    db_option,
    freeze_startup_heap,
    log_format_option,
    open_node_database,
    run_async,
    settings_from,
    start_engine,
)
from api.cli.paths import sandbox_cache_dir
from api.cli.signals import StopSignals
from api.demo import add_demo_rule, ensure_demo_tenant
from api.engine_settings import engine_config
from api.settings import Settings
from engine.service import EngineService
from sandbox import Sandbox, SandboxConfig
from tenants.db import describe_url


@click.command()
@db_option
@click.option("--host", help="Address to listen on (default 127.0.0.1).")
@click.option("--port", type=int, help="Port to listen on (default 8000; 0 picks a free one).")
@click.option(
    "--metrics-address",
    metavar="HOST:PORT",
    help="Also serve /metrics on this address, without a token (keep it off public networks).",
)
@click.option("--no-demo", is_flag=True, default=None, help="Do not create the demo tenant.")
@log_format_option
@run_async
async def serve(
    database_url: str | None,
    host: str | None,
    port: int | None,
    metrics_address: str | None,
    no_demo: bool | None,
    log_format: str | None,
) -> None:
    """Serve the REST API, the admin UI and the engine on one database."""
    settings = settings_from(
        database_url=database_url,
        host=host,
        port=port,
        metrics_address=metrics_address,
        demo=None if no_demo is None else False,
        log_format=log_format,
    )
    db, box = await open_node_database(settings)
    try:
        issued = await ensure_demo_tenant(db) if settings.demo else None
        if issued is not None:
            click.echo(f"created tenant 'demo'; its admin API key (shown once): {issued.secret}")
        sandbox_config = SandboxConfig(
            max_workers=settings.max_concurrency, cache_dir=sandbox_cache_dir()
        )
        async with Sandbox(sandbox_config) as sandbox:
            service = EngineService(db, sandbox, engine_config(settings), secrets=box)
            if issued is not None:
                await add_demo_rule(service, issued)
            server = uvicorn.Server(
                _uvicorn_config(settings, create_app(settings, db, service, box))
            )
            with _metrics_listener(settings) as metrics_port:
                listener = server.config.bind_socket()
                click.echo(_banner(settings, listener, metrics_port))
                signals = StopSignals()
                signals.on_second = service.hurry
                await start_engine(service)
                freeze_startup_heap()
                watcher = asyncio.create_task(_exit_on(signals, server), name="cadenza-stop")
                try:
                    await server.serve(sockets=[listener])
                finally:
                    watcher.cancel()
                    await service.stop(settings.stop_grace_s)
    finally:
        await db.dispose()


async def _exit_on(signals: StopSignals, server: uvicorn.Server) -> None:
    """A signal that came before uvicorn listened for its own still stops the server."""
    await signals.stopped()
    server.should_exit = True


def _uvicorn_config(settings: Settings, app: object) -> uvicorn.Config:
    return uvicorn.Config(
        app,  # type: ignore[arg-type]
        host=settings.host,
        port=settings.port,
        log_level=settings.log_level,
        # As JSON, uvicorn's records go to the one handler instead of its own.
        log_config=LOGGING_CONFIG if settings.log_format == "text" else None,
        lifespan="on",
    )


@contextlib.contextmanager
def _metrics_listener(settings: Settings) -> Iterator[int | None]:
    """The separate /metrics listener, if asked for: a thread of its own, so a scrape is
    answered even while the event loop is busy. Yields the port it bound."""
    if settings.metrics_address is None:
        yield None
        return
    host, _, port = settings.metrics_address.rpartition(":")
    try:
        httpd, thread = start_http_server(int(port), addr=host)
    except OSError as exc:
        raise click.ClickException(
            f"cannot serve metrics on {settings.metrics_address}: {exc.strerror}; "
            "choose another --metrics-address"
        ) from exc
    try:
        yield int(httpd.server_port)
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()


def _banner(settings: Settings, listener: socket.socket, metrics_port: int | None) -> str:
    """What `serve` prints once it has bound: the port it got (`--port 0` picks one)."""
    port = listener.getsockname()[1]
    text = (
        f"serving {describe_url(settings.database_url)} on http://{settings.host}:{port}/ "
        "(admin UI at /ui/, API docs at /docs)"
    )
    if metrics_port is not None:
        host = settings.metrics_address.rpartition(":")[0] if settings.metrics_address else ""
        text += f"; metrics at http://{host}:{metrics_port}/metrics"
    return text
