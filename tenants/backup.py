"""Backing up and restoring the SQLite database file while Cadenza runs (or after it stopped).

`backup` uses SQLite's online backup API in one step: it reads one consistent snapshot (in WAL
mode readers never block the writer, so the engine keeps running meanwhile) including what
still sits in the `-wal` file, which a plain `cp` of the `.db` file would miss. The copy is
written beside the destination, checked (`PRAGMA quick_check`) and renamed into place, so a
crash never leaves half a backup under the destination's name.

`restore` puts a backup where no database is: it refuses a path where a database (or its
`-wal`/`-shm` companions) still is, since SQLite would replay an old journal onto the restored
file, and a live database must never be overwritten by mistake. Move the old files away first.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
from pathlib import Path

from tenants.errors import InvalidInput

BUSY_TIMEOUT_MS = 5000


def backup(source: Path, destination: Path) -> None:
    """Write a consistent copy of the database `source` to `destination` (a new file)."""
    if destination.exists():
        raise InvalidInput(f"{destination} exists: choose a new file for the backup")
    if not source.exists():
        raise InvalidInput(f"there is no database at {source}: check --db")
    partial = destination.with_name(f".{destination.name}.partial")
    partial.unlink(missing_ok=True)
    try:
        with contextlib.closing(_open(source)) as src, contextlib.closing(_open(partial)) as dst:
            src.backup(dst)
            dst.execute("PRAGMA journal_mode=DELETE")  # one self-contained file
            _check(dst, partial)
        _fsync(partial)
        os.replace(partial, destination)
    finally:
        partial.unlink(missing_ok=True)


def restore(backup_file: Path, target: Path) -> None:
    """Put a checked copy of `backup_file` at `target`, where no database may be yet."""
    if not backup_file.is_file():
        raise InvalidInput(f"there is no backup file {backup_file}")
    with contextlib.closing(_open(backup_file)) as copy:
        _check(copy, backup_file)
    files = (target, _companion(target, "-wal"), _companion(target, "-shm"))
    present = [path for path in files if path.exists()]
    if present:
        raise InvalidInput(
            f"{present[0]} exists: stop Cadenza and move the old database files away first "
            "(a restore never overwrites a database)"
        )
    partial = target.with_name(f".{target.name}.partial")
    try:
        shutil.copyfile(backup_file, partial)
        _fsync(partial)
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)


def _open(path: Path) -> sqlite3.Connection:
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    return connection


def _check(connection: sqlite3.Connection, path: Path) -> None:
    found = connection.execute("PRAGMA quick_check").fetchone()[0]
    if found != "ok":
        raise InvalidInput(f"{path} is not a sound SQLite database ({found}): nothing was changed")


def _companion(path: Path, suffix: str) -> Path:
    return path.with_name(path.name + suffix)


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
