"""Fixtures every test package shares: real databases (SQLite file and PostgreSQL) and servers.

Every storage test runs on both databases through the parametrised `database_url` fixture.
Outside CI a machine without PostgreSQL binaries skips the PostgreSQL half; under CI
(`CI=true`) a missing PostgreSQL is a failure, never a skip.
"""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import pytest
import uvloop
from sqlalchemy.ext.asyncio import AsyncEngine
from support.api_servers import serving_shared
from support.ci import missing
from support.db_engines import checked_engine
from support.postgres import PostgresCluster, find_bin_dir
from support.processes import Server, run_cli
from support.slow_first import slowest_files_first

from tenants.secret_box import KeyRing, SecretBox, new_key


def pytest_asyncio_loop_factories(
    config: pytest.Config, item: pytest.Item
) -> dict[str, Callable[[], asyncio.AbstractEventLoop]]:
    """In-process tests run on the event loop the product runs on (`uvloop.run` in the CLI)."""
    return {"uvloop": uvloop.new_event_loop}


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Slowest files first: parallel workers then end together (`support.slow_first`)."""
    slowest_files_first(items)


@pytest.fixture(autouse=True)
def _no_event_loop_left_running(request: pytest.FixtureRequest) -> Iterator[None]:
    """A test that leaves an event loop marked running in the main thread would fail every
    async test after it in the same process with "Runner.run() cannot be called from a
    running event loop": fail the test that did it instead, and clear the mark. Playwright's
    sync API keeps its loop running on purpose while a UI module's browser is open."""
    yield
    if request.node.path.parent.name == "ui":
        return
    leaked = asyncio._get_running_loop()
    if leaked is not None:
        asyncio._set_running_loop(None)
        pytest.fail(f"{request.node.nodeid} left {leaked!r} marked running in the main thread")


def _migrate(url: str) -> None:
    done = run_cli("db", "upgrade", "--db", url)
    assert done.returncode == 0, f"migration failed: {done.stderr}"


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[PostgresCluster]:
    bin_dir = find_bin_dir()
    if bin_dir is None:
        missing("PostgreSQL server binaries (initdb, pg_ctl) not found")
    cluster = PostgresCluster(bin_dir)
    cluster.start()
    try:
        cluster.sql("CREATE DATABASE cadenza_template")
        _migrate(cluster.url("cadenza_template"))
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("sqlite-template") / "cadenza.db"
    _migrate(f"sqlite+aiosqlite:///{path}")
    return path


@pytest.fixture(scope="session")
def sqlite_shared_server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Server]:
    """The API and client tests' server on SQLite (`support.api_servers.shared_server`)."""
    with serving_shared(request, tmp_path_factory, "sqlite") as server:
        yield server


@pytest.fixture(scope="session")
def postgresql_shared_server(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    pg_cluster: PostgresCluster,
) -> Iterator[Server]:
    """The same on PostgreSQL; it asks for the cluster so that it stops before the cluster."""
    with serving_shared(request, tmp_path_factory, "postgresql") as server:
        yield server


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A freshly migrated database of each kind, private to one test."""
    if request.param == "sqlite":
        path = tmp_path / "cadenza.db"
        shutil.copy(request.getfixturevalue("sqlite_template"), path)
        return f"sqlite+aiosqlite:///{path}"
    cluster: PostgresCluster = request.getfixturevalue("pg_cluster")
    return cluster.url(cluster.create_database(template="cadenza_template"))


@pytest.fixture
async def db(database_url: str) -> AsyncIterator[AsyncEngine]:
    """An engine on the test's database; the test fails if it leaks a connection."""
    async with checked_engine(database_url) as engine:
        yield engine


@pytest.fixture
def secret_box() -> SecretBox:
    """A box with a fresh operator key, as `serve` has from its key file."""
    return SecretBox(KeyRing((new_key(),)))
