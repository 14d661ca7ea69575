"""Alembic migrations give one schema on SQLite and PostgreSQL, match the tables, and reverse."""

from __future__ import annotations

from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine
from support.processes import run_cli

import engine.store.tables  # noqa: F401
from engine.store import schema
from tenants.tables import metadata


def _shape(connection: Connection) -> dict[str, Any]:
    """Tables, columns (name, nullable), primary keys, indexes and foreign keys: no type names,
    since SQLite and PostgreSQL spell the same type differently."""
    inspector = inspect(connection)
    shape: dict[str, Any] = {}
    for table in sorted(inspector.get_table_names()):
        shape[table] = {
            "columns": sorted((c["name"], c["nullable"]) for c in inspector.get_columns(table)),
            "pk": inspector.get_pk_constraint(table)["constrained_columns"],
            "indexes": sorted(
                (i["name"], tuple(i["column_names"]), bool(i["unique"]))
                for i in inspector.get_indexes(table)
            ),
            "foreign_keys": sorted(
                (tuple(f["constrained_columns"]), f["referred_table"])
                for f in inspector.get_foreign_keys(table)
            ),
        }
    return shape


async def shape_of(db: AsyncEngine) -> dict[str, Any]:
    async with db.connect() as conn:
        return await conn.run_sync(_shape)


@pytest.mark.postgres
async def test_upgrade_gives_same_schema_on_sqlite_and_postgresql(
    sqlite_template: Any, pg_cluster: Any
) -> None:
    from tenants.db import create_engine

    engines = [
        create_engine(f"sqlite+aiosqlite:///{sqlite_template}"),
        create_engine(pg_cluster.url("cadenza_template")),
    ]
    try:
        sqlite_shape, pg_shape = [await shape_of(e) for e in engines]
    finally:
        for e in engines:
            await e.dispose()
    assert set(sqlite_shape) >= {"tenants", "api_keys", "rules", "actions", "runs", "kv", "events"}
    # SQLite reports unique constraints as indexes only where they are named indexes; compare
    # what both report.
    for table in sqlite_shape:
        for part in ("columns", "pk", "foreign_keys"):
            assert sqlite_shape[table][part] == pg_shape[table][part], (table, part)
        named = {i for i in pg_shape[table]["indexes"] if i[0].startswith("ix_")}
        assert named == {i for i in sqlite_shape[table]["indexes"] if i[0].startswith("ix_")}


def _diff(connection: Connection) -> list[Any]:
    return compare_metadata(MigrationContext.configure(connection), metadata)


async def test_migrations_create_exactly_the_declared_tables(db: AsyncEngine) -> None:
    async with db.connect() as conn:
        assert await conn.run_sync(_diff) == []


async def test_downgrade_then_upgrade_round_trip(db: AsyncEngine) -> None:
    before = await shape_of(db)
    await schema.downgrade(db, "base")
    assert set(await shape_of(db)) <= {"alembic_version"}
    await schema.upgrade(db)
    assert await shape_of(db) == before
    assert await schema.is_current(db)


def test_head_names_the_newest_migration() -> None:
    """A database at `schema.HEAD` is taken as current without asking Alembic: a migration
    added without moving `HEAD` would never be applied."""
    config = Config()
    config.set_main_option("script_location", str(schema.MIGRATIONS_DIR))
    assert ScriptDirectory.from_config(config).get_heads() == [schema.HEAD]


async def test_an_older_database_is_not_current_and_upgrade_brings_it_to_head(
    db: AsyncEngine,
) -> None:
    await schema.downgrade(db, "0016")
    assert not await schema.is_current(db)
    await schema.upgrade(db)
    assert await schema.is_current(db)
    async with db.connect() as conn:
        assert await conn.scalar(text("SELECT version_num FROM alembic_version")) == schema.HEAD


async def test_database_from_newer_cadenza_is_refused(db: AsyncEngine, database_url: str) -> None:
    async with db.begin() as conn:
        await conn.execute(text("UPDATE alembic_version SET version_num = '9999_future'"))
    done = run_cli("db", "upgrade", "--db", database_url)
    assert done.returncode == 2
    assert "9999_future" in done.stderr and "upgrade Cadenza" in done.stderr
    assert "Traceback" not in done.stderr
    async with db.connect() as conn:
        assert await conn.scalar(text("SELECT version_num FROM alembic_version")) == "9999_future"
