"""Databases for the servers the API tests start, and the servers the API and client
packages share."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from support.operator import ADMIN_TOKEN
from support.postgres import PostgresCluster
from support.processes import Server, running_server

#: Both database kinds, as fixture parameters.
KINDS = ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)]
#: For an API test whose subject never reaches the store (a preview, a request refused before
#: any read or write): the shared SQLite server only, instead of one per database kind.
SQLITE_SERVER_ONLY = pytest.mark.parametrize("server", ["sqlite"], indirect=True)
#: The shared server's API tests probe wrong keys from one address all session long; the
#: throttle of failed authentications is tested on a server of its own.
UNTHROTTLED = {"CADENZA_AUTH_FAILURES_PER_MINUTE": "10000"}


def new_database_url(
    kind: str, request: pytest.FixtureRequest, factory: pytest.TempPathFactory
) -> str:
    """A freshly migrated database of `kind` ("sqlite" or "postgresql")."""
    if kind == "sqlite":
        path = factory.mktemp("api") / "cadenza.db"
        shutil.copy(request.getfixturevalue("sqlite_template"), path)
        return f"sqlite+aiosqlite:///{path}"
    cluster: PostgresCluster = request.getfixturevalue("pg_cluster")
    return cluster.url(cluster.create_database(template="cadenza_template"))


def shared_server(request: pytest.FixtureRequest) -> Server:
    """The test process's shared server on the database kind `request.param` names.

    pytest keeps one instance of a parametrised session fixture at a time, so a server per
    kind as one fixture restarted both at every file (sqlite's tests, then postgresql's). One
    session fixture per kind (tests/conftest.py) keeps both up for the whole session; tests
    never share a tenant, so they cannot see each other's objects.
    """
    server: Server = request.getfixturevalue(f"{request.param}_shared_server")
    return server


@contextmanager
def serving_shared(
    request: pytest.FixtureRequest, factory: pytest.TempPathFactory, kind: str
) -> Iterator[Server]:
    """Start the shared server of `kind`, with the operator API open and no throttle."""
    env = {"CADENZA_ADMIN_TOKEN": ADMIN_TOKEN, **UNTHROTTLED}
    with running_server(new_database_url(kind, request, factory), env=env) as running:
        yield running
