"""The databases a suite run measures on: SQLite files and one throwaway PostgreSQL cluster.

The PostgreSQL cluster is the test suite's (`tests/support/postgres.py`: initdb + pg_ctl on a
free loopback port, durability off because it dies with the run). Both Cadenza and the
APScheduler peer get fresh databases on the same cluster, so the comparison is like for like.
"""

from __future__ import annotations

import contextlib
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy.engine import make_url

_TESTS_DIR = Path(__file__).resolve().parent.parent / "tests"
#: On top of the test cluster's: per-statement counts, for the multinode scenario's statements
#: per action (`bench.pg_activity`).
SERVER_SETTINGS = {"shared_preload_libraries": "pg_stat_statements"}


def _cluster_module() -> Any:
    """tests/support/postgres.py, imported the way pytest imports it (tests/ on the path)."""
    if str(_TESTS_DIR) not in sys.path:
        sys.path.append(str(_TESTS_DIR))
    from support import postgres  # type: ignore[import-not-found]

    return postgres


@dataclass
class Databases:
    """Hands out fresh database URLs; starts PostgreSQL on first use and stops it at the end."""

    work_dir: Path
    _cluster: Any = None
    _pg_missing: str | None = None
    _counter: int = 0
    _stack: contextlib.ExitStack = field(default_factory=contextlib.ExitStack)

    def url(self, kind: str) -> str | None:
        """A fresh database of `kind` ("sqlite" or "postgresql"); None if PostgreSQL is missing."""
        return self.sqlite_url("bench") if kind == "sqlite" else self.postgres_url()

    def sqlite_url(self, label: str) -> str:
        """A new, empty SQLite file (async URL, for Cadenza)."""
        self._counter += 1
        return f"sqlite+aiosqlite:///{self.work_dir / f'{label}-{self._counter}.db'}"

    def postgres_url(self) -> str | None:
        """A new, empty PostgreSQL database (async URL), or None when PostgreSQL is missing."""
        cluster = self._postgres()
        if cluster is None:
            return None
        return str(cluster.url(cluster.create_database()))

    @property
    def postgres_missing(self) -> str:
        return self._pg_missing or ""

    def _postgres(self) -> Any:
        if self._cluster is None and self._pg_missing is None:
            module = _cluster_module()
            bin_dir = module.find_bin_dir()
            if bin_dir is None:
                self._pg_missing = "PostgreSQL server binaries (initdb, pg_ctl) not found"
                return None
            cluster = module.PostgresCluster(bin_dir, SERVER_SETTINGS)
            cluster.start()
            self._stack.callback(cluster.stop)
            self._cluster = cluster
        return self._cluster

    def close(self) -> None:
        self._stack.close()


def sync_url(async_url: str) -> str:
    """The same database through a synchronous driver, for APScheduler's SQLAlchemyJobStore."""
    url = make_url(async_url)
    driver = "sqlite" if url.get_backend_name() == "sqlite" else "postgresql+psycopg"
    return url.set(drivername=driver).render_as_string(hide_password=False)


@contextlib.contextmanager
def open_databases() -> Iterator[Databases]:
    with tempfile.TemporaryDirectory(prefix="cadenza-bench-") as work_dir:
        databases = Databases(Path(work_dir))
        try:
            yield databases
        finally:
            databases.close()
