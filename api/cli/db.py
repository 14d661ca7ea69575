"""`cadenza db …`: schema management."""

from __future__ import annotations

import click

from api.cli.common import db_option, open_migrated, run_async, settings_from
from engine.store import schema
from tenants.connect import open_database
from tenants.db import describe_url


@click.group()
def db() -> None:
    """Create and migrate the database schema."""


@db.command()
@db_option
@run_async
async def upgrade(database_url: str | None) -> None:
    """Create the schema or migrate it to the newest version (safe to repeat)."""
    settings = settings_from(database_url=database_url)
    engine = await open_migrated(settings.database_url)
    await engine.dispose()
    click.echo(f"{describe_url(settings.database_url)} is at schema {schema.head_revision()}")


@db.command()
@click.argument("revision")
@db_option
@run_async
async def downgrade(revision: str, database_url: str | None) -> None:
    """Migrate the schema back to REVISION (`base` removes every table)."""
    settings = settings_from(database_url=database_url)
    engine = await open_database(settings.database_url)
    try:
        await schema.downgrade(engine, revision)
    finally:
        await engine.dispose()
    click.echo(f"{describe_url(settings.database_url)} is at schema {revision}")


@db.command()
@db_option
@run_async
async def current(database_url: str | None) -> None:
    """Print the schema revision of the database."""
    settings = settings_from(database_url=database_url)
    engine = await open_database(settings.database_url)
    try:
        revision = await schema.current_revision(engine)
    finally:
        await engine.dispose()
    click.echo(revision or "empty (run `cadenza db upgrade`)")
