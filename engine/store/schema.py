"""Create, upgrade and inspect the schema through Alembic, on our own async engine.

Every command and every process start checks the schema first. A database already at `HEAD`
is recognised from its `alembic_version` row alone, without loading Alembic and its scripts,
which cost more than the rest of a short command (decision 130); anything else goes through
Alembic.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine

from tenants.errors import InvalidInput, SchemaTooNew

if TYPE_CHECKING:
    from alembic.config import Config

MIGRATIONS_DIR = Path(__file__).resolve().parent.parent / "migrations"
#: The newest revision in engine/migrations/versions: a new migration moves it (a test holds
#: it to Alembic's own head).
HEAD = "0017"
#: Where Alembic keeps a database's revision.
VERSION_TABLE = "alembic_version"


def _config(connection: Connection | None = None) -> Config:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.attributes["connection"] = connection
    return config


def _current(connection: Connection) -> str | None:
    from alembic.runtime.migration import MigrationContext

    return MigrationContext.configure(connection).get_current_revision()


def _at_head(connection: Connection) -> bool:
    if not inspect(connection).has_table(VERSION_TABLE):
        return False
    revisions = connection.execute(text(f"SELECT version_num FROM {VERSION_TABLE}")).all()
    return [tuple(r) for r in revisions] == [(HEAD,)]


def _check_known(connection: Connection) -> None:
    from alembic.script import ScriptDirectory
    from alembic.util.exc import CommandError

    current = _current(connection)
    if current is None:
        return
    try:
        ScriptDirectory.from_config(_config()).get_revision(current)
    except CommandError as exc:
        raise SchemaTooNew(
            f"the database is at schema revision {current}, which this Cadenza does not know "
            f"(it knows up to {HEAD}): the database was migrated by a newer Cadenza; "
            "upgrade Cadenza to use it"
        ) from exc


def _run(connection: Connection, action: str, revision: str) -> None:
    from alembic import command
    from alembic.util.exc import CommandError

    _check_known(connection)
    try:
        getattr(command, action)(_config(connection), revision)
    except CommandError as exc:
        raise InvalidInput(f"cannot {action} to {revision!r}: {exc}") from exc


async def upgrade(engine: AsyncEngine, revision: str = "head") -> None:
    """Migrate the database to `revision` (default: the newest this code knows)."""
    if revision in ("head", HEAD) and await is_current(engine):
        return
    async with engine.begin() as conn:
        await conn.run_sync(_run, "upgrade", revision)


async def downgrade(engine: AsyncEngine, revision: str) -> None:
    async with engine.begin() as conn:
        await conn.run_sync(_run, "downgrade", revision)


async def current_revision(engine: AsyncEngine) -> str | None:
    async with engine.connect() as conn:
        return await conn.run_sync(_current)


async def is_current(engine: AsyncEngine) -> bool:
    """Whether the database is at `HEAD` (a read of its revision, Alembic left unloaded)."""
    async with engine.connect() as conn:
        return await conn.run_sync(_at_head)


def _autogenerate(connection: Connection, message: str) -> Any:
    from alembic import command

    return command.revision(_config(connection), message=message, autogenerate=True)


async def autogenerate(engine: AsyncEngine, message: str) -> Any:
    """Write a new migration from the difference between the tables and the database (dev tool)."""
    async with engine.begin() as conn:
        return await conn.run_sync(_autogenerate, message)
