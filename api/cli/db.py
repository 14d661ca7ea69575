"""`cadenza db …`: schema management, backup and restore."""

from __future__ import annotations

import asyncio
from pathlib import Path

import click
from sqlalchemy.ext.asyncio import AsyncEngine

from api.cli.common import db_option, open_migrated, run_async, settings_from
from api.cli.exits import fail
from api.secret_keys import open_secret_box, seal_legacy_secrets
from api.settings import Settings
from engine.store import schema
from tenants import backup as sqlite_backup
from tenants import secrets
from tenants.connect import open_database
from tenants.db import describe_url, is_sqlite, normalise_url, sqlite_path
from tenants.secret_box import SecretKeyError

PG_BACKUP = (
    "for PostgreSQL use its own tools, consistent while Cadenza runs: "
    "pg_dump --format=custom --file=cadenza.dump URL, and pg_restore into a new database "
    "(see docs/operations.md, 'Backups')"
)


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
    try:
        sealed = await _seal_if_keyed(engine, settings)
    finally:
        await engine.dispose()
    click.echo(f"{describe_url(settings.database_url)} is at schema {schema.HEAD}")
    if sealed:
        click.echo(f"sealed {sealed} stored secrets with the operator key")


async def _seal_if_keyed(engine: AsyncEngine, settings: Settings) -> int:
    """Seal the plain-text secrets an upgrade moved aside, when this process has the key; on
    PostgreSQL without a configured key they wait for the first `serve` or `worker`."""
    async with engine.connect() as conn:
        if not await secrets.has_legacy(conn):
            return 0
    try:
        box = open_secret_box(settings)
    except SecretKeyError as exc:
        click.echo(f"secrets not sealed yet: {exc}", err=True)
        return 0
    return await seal_legacy_secrets(engine, box)


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


@db.command()
@click.argument("destination", type=click.Path(path_type=Path))
@db_option
@run_async
async def backup(destination: Path, database_url: str | None) -> None:
    """Copy the SQLite database to DESTINATION, consistent while Cadenza runs."""
    source = _sqlite_file(database_url)
    await asyncio.to_thread(sqlite_backup.backup, source, destination)
    click.echo(f"backed up {source} to {destination}")


@db.command()
@click.argument("backup_file", type=click.Path(path_type=Path))
@db_option
@run_async
async def restore(backup_file: Path, database_url: str | None) -> None:
    """Put BACKUP_FILE in place as the SQLite database (where no database is yet)."""
    target = _sqlite_file(database_url)
    await asyncio.to_thread(sqlite_backup.restore, backup_file, target)
    click.echo(f"restored {backup_file} to {target}; start Cadenza with the same operator key")


def _sqlite_file(database_url: str | None) -> Path:
    url = normalise_url(settings_from(database_url=database_url).database_url)
    if not is_sqlite(url):
        fail(PG_BACKUP)
    return sqlite_path(url).expanduser()
