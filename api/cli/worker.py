"""`cadenza worker`: the engine alone, without the API. Several workers (and `serve`
processes) may share one PostgreSQL; each runs the tenants it holds a lease on."""

from __future__ import annotations

from dataclasses import replace

import click

from api.cli.common import (
    db_option,
    log_format_option,
    open_node_database,
    run_async,
    settings_from,
)
from api.cli.node import running_node
from api.engine_settings import engine_config
from tenants.db import describe_url


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
    config = replace(engine_config(settings), use_tenant_leases=not no_tenant_leases)
    try:
        async with running_node(settings, db, box, config) as (service, signals):
            click.echo(
                f"worker {service.node_name} running on {describe_url(settings.database_url)}",
            )
            await signals.stopped()
    finally:
        await db.dispose()
