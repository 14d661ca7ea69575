"""`cadenza serve`: the API, the engine and the UI on one database, as one command with one
log stream and one stop, in separate processes (`api.serving`): the engine process, and
`--api-workers` API processes sharing the listening socket, under a supervisor."""

from __future__ import annotations

import socket
import sys
import tempfile
from pathlib import Path

import click

from api.cli.common import (
    db_option,
    log_format_option,
    open_node_database,
    run_async,
    settings_from,
)
from api.demo import ensure_demo_tenant
from api.serving.api_process import uvicorn_config
from api.serving.layout import Layout
from api.serving.supervisor import Supervisor
from api.settings import Settings
from tenants.db import describe_url
from tenants.keys import IssuedKey


@click.command()
@db_option
@click.option("--host", help="Address to listen on (default 127.0.0.1).")
@click.option("--port", type=int, help="Port to listen on (default 8000; 0 picks a free one).")
@click.option(
    "--api-workers",
    type=click.IntRange(min=1),
    help="API processes (default: $CADENZA_API_WORKERS or the number of cores).",
)
@click.option(
    "--metrics-address",
    metavar="HOST:PORT",
    help="Also serve /metrics on this address, without a token (keep it off public networks).",
)
@click.option("--no-demo", is_flag=True, default=None, help="Do not create the demo tenant.")
@log_format_option
def serve(
    database_url: str | None,
    host: str | None,
    port: int | None,
    api_workers: int | None,
    metrics_address: str | None,
    no_demo: bool | None,
    log_format: str | None,
) -> None:
    """Serve the REST API, the admin UI and the engine on one database."""
    settings = settings_from(
        database_url=database_url,
        host=host,
        port=port,
        api_workers=api_workers,
        metrics_address=metrics_address,
        demo=None if no_demo is None else False,
        log_format=log_format,
    )
    issued = run_async(_prepare)(settings)
    if issued is not None:
        click.echo(f"created tenant 'demo'; its admin API key (shown once): {issued.secret}")
    listener = uvicorn_config(settings, None).bind_socket()
    run_dir = tempfile.TemporaryDirectory(prefix="cadenza-serve-")
    with run_dir, Supervisor(Layout(settings, Path(run_dir.name), demo=issued)) as supervisor:
        started = supervisor.start(listener)
        if started is not None:
            click.echo(_banner(settings, listener, started.public_metrics_port))
        code = supervisor.run()
    sys.exit(code)


async def _prepare(settings: Settings) -> IssuedKey | None:
    """Migrate and seal before any child starts; create the demo tenant (the engine process
    adds its rule)."""
    db, _ = await open_node_database(settings)
    try:
        return await ensure_demo_tenant(db) if settings.demo else None
    finally:
        await db.dispose()


def _banner(settings: Settings, listener: socket.socket, metrics_port: int | None) -> str:
    """What `serve` prints once its engine runs: the port it bound (`--port 0` picks one)."""
    port = listener.getsockname()[1]
    text = (
        f"serving {describe_url(settings.database_url)} on http://{settings.host}:{port}/ "
        "(admin UI at /ui/, API docs at /docs)"
    )
    if metrics_port is not None:
        host = settings.metrics_address.rpartition(":")[0] if settings.metrics_address else ""
        text += f"; metrics at http://{host}:{metrics_port}/metrics"
    return text
