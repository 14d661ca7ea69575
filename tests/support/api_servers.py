"""Databases for the servers the API tests start."""

from __future__ import annotations

import shutil

import pytest

from support.postgres import PostgresCluster

#: Both database kinds, as fixture parameters.
KINDS = ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)]
#: The shared server's API tests probe wrong keys from one address all session long; the
#: throttle of failed authentications is tested on a server of its own.
UNTHROTTLED = {"CADENZA_AUTH_FAILURES_PER_MINUTE": "10000"}


def new_database_url(request: pytest.FixtureRequest, factory: pytest.TempPathFactory) -> str:
    """A freshly migrated database of the kind `request.param` names."""
    if request.param == "sqlite":
        path = factory.mktemp("api") / "cadenza.db"
        shutil.copy(request.getfixturevalue("sqlite_template"), path)
        return f"sqlite+aiosqlite:///{path}"
    cluster: PostgresCluster = request.getfixturevalue("pg_cluster")
    return cluster.url(cluster.create_database(template="cadenza_template"))
