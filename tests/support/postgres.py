"""A throwaway PostgreSQL cluster started from the server binaries, for one test session.

`initdb` and `postgres` refuse to run as root, so when the tests run as root the cluster is
owned by an unprivileged OS user. Durability settings are off: the cluster dies with the tests.
"""

from __future__ import annotations

import glob
import itertools
import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path

from support.ports import free_port

_counter = itertools.count()


def find_bin_dir() -> Path | None:
    """Where initdb/pg_ctl/psql live: on PATH, or in Debian's versioned directory."""
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(p.split("/")[-2]))
    for directory in reversed(candidates):
        if all(Path(directory, b).exists() for b in ("initdb", "pg_ctl", "psql", "postgres")):
            return Path(directory)
    found = shutil.which("initdb")
    return Path(found).parent if found else None


def _os_user() -> str | None:
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            pwd.getpwnam(name)
        except KeyError:
            continue
        return name
    raise RuntimeError("running as root and no unprivileged user (postgres, nobody) exists")


class PostgresCluster:
    """initdb + pg_ctl on a free loopback port; databases are cloned from a migrated template."""

    def __init__(self, bin_dir: Path, settings: Mapping[str, str] | None = None) -> None:
        self.bin_dir = bin_dir
        #: Server settings on top of the throwaway defaults (`-c name=value` each).
        self.settings = dict(settings or {})
        # Not under pytest's tmp dir: that is private to root, and the cluster's owner is not.
        self.base_dir = Path(tempfile.mkdtemp(prefix="cadenza-pg-"))
        self.data_dir = self.base_dir / "data"
        self.port = free_port()
        self.user = _os_user()

    def _run(self, *args: str) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [str(self.bin_dir / args[0]), *args[1:]],
            capture_output=True,
            text=True,
            user=self.user,
            cwd=self.base_dir,
        )
        if done.returncode != 0:
            raise RuntimeError(f"{args[0]} failed ({done.returncode}): {done.stderr.strip()}")
        return done

    def start(self) -> None:
        if self.user is not None:
            shutil.chown(self.base_dir, self.user)
        self._run(
            "initdb",
            "-D",
            str(self.data_dir),
            "-U",
            "cadenza",
            "--auth=trust",
            "-E",
            "UTF8",
            "--no-locale",
        )
        self.start_server()

    def start_server(self) -> None:
        """Start (or start again) the server on its data directory and port."""
        options = (
            f"-p {self.port} -k {self.base_dir} -c listen_addresses=127.0.0.1 -c fsync=off "
            "-c synchronous_commit=off -c full_page_writes=off -c max_connections=300"
        ) + "".join(f" -c {name}={value}" for name, value in self.settings.items())
        self._run(
            "pg_ctl",
            "-D",
            str(self.data_dir),
            "-o",
            options,
            "-l",
            str(self.base_dir / "log"),
            "-w",
            "start",
        )

    def stop_server(self) -> None:
        """Stop the server, as an outage would, keeping its data for `start_server`."""
        self._run("pg_ctl", "-D", str(self.data_dir), "-m", "fast", "-w", "stop")

    def stop(self) -> None:
        try:
            self._run("pg_ctl", "-D", str(self.data_dir), "-m", "immediate", "stop")
        finally:
            # A session's cluster holds a database per test: removing it can take minutes on
            # a busy machine, so a background process does it while the run goes on (the
            # shell exits at once; the `rm` it leaves is not this process's child).
            background = 'rm -rf -- "$1" >/dev/null 2>&1 &'
            subprocess.run(["sh", "-c", background, "sh", str(self.base_dir)], check=False)

    def url(self, database: str) -> str:
        return f"postgresql+asyncpg://cadenza@127.0.0.1:{self.port}/{database}"

    def sql(self, statement: str, database: str = "postgres") -> str:
        return self._run(
            "psql",
            "-h",
            "127.0.0.1",
            "-p",
            str(self.port),
            "-U",
            "cadenza",
            "-d",
            database,
            "-v",
            "ON_ERROR_STOP=1",
            "-Atc",
            statement,
        ).stdout

    def tool(self, name: str, *args: str) -> str:
        """Run a client program of the cluster (pg_dump, pg_restore...) against it, as the
        cluster's owner (so files it writes belong under `base_dir`); its output."""
        return self._run(
            name, "-h", "127.0.0.1", "-p", str(self.port), "-U", "cadenza", *args
        ).stdout

    def dump(self, database: str) -> str:
        """Everything in `database`, as pg_dump writes it in plain SQL (schema and rows)."""
        return self.tool("pg_dump", database)

    def create_database(self, template: str | None = None) -> str:
        name = f"test_{os.getpid()}_{next(_counter)}"
        clause = f" TEMPLATE {template}" if template else ""
        self.sql(f"CREATE DATABASE {name}{clause}")
        return name
