"""Create, upgrade and inspect the schema through Alembic, on our own async engine."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.util.exc import CommandError
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine

from tenants.errors import InvalidInput, SchemaTooNew

MIGRATIONS_DIR = Path(__file__).resolve().parent.parent / "migrations"


def _config(connection: Connection | None = None) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.attributes["connection"] = connection
    return config


def head_revision() -> str:
    head = ScriptDirectory.from_config(_config()).get_current_head()
    assert head is not None
    return head


def _current(connection: Connection) -> str | None:
    return MigrationContext.configure(connection).get_current_revision()


def _check_known(connection: Connection) -> None:
    current = _current(connection)
    if current is None:
        return
    try:
        ScriptDirectory.from_config(_config()).get_revision(current)
    except CommandError as exc:
        raise SchemaTooNew(
            f"the database is at schema revision {current}, which this Cadenza does not know "
            f"(it knows up to {head_revision()}): the database was migrated by a newer Cadenza; "
            "upgrade Cadenza to use it"
        ) from exc


def _run(connection: Connection, action: str, revision: str) -> None:
    _check_known(connection)
    try:
        getattr(command, action)(_config(connection), revision)
    except CommandError as exc:
        raise InvalidInput(f"cannot {action} to {revision!r}: {exc}") from exc


async def upgrade(engine: AsyncEngine, revision: str = "head") -> None:
    """Migrate the database to `revision` (default: the newest this code knows)."""
    async with engine.begin() as conn:
        await conn.run_sync(_run, "upgrade", revision)


async def downgrade(engine: AsyncEngine, revision: str) -> None:
    async with engine.begin() as conn:
        await conn.run_sync(_run, "downgrade", revision)


async def current_revision(engine: AsyncEngine) -> str | None:
    async with engine.connect() as conn:
        return await conn.run_sync(_current)


async def is_current(engine: AsyncEngine) -> bool:
    return await current_revision(engine) == head_revision()


def _autogenerate(connection: Connection, message: str) -> Any:
    return command.revision(_config(connection), message=message, autogenerate=True)


async def autogenerate(engine: AsyncEngine, message: str) -> Any:
    """Write a new migration from the difference between the tables and the database (dev tool)."""
    async with engine.begin() as conn:
        return await conn.run_sync(_autogenerate, message)
