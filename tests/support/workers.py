"""Real `cadenza worker` processes for the crash and multi-node tests."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from support.processes import CADENZA, node_env

#: Short leases, so a killed worker's claims are taken over within seconds.
WORKER_ENV = {
    "CADENZA_LEASE_S": "2",
    "CADENZA_LEASE_MARGIN_S": "1",
    "CADENZA_MAX_CONCURRENCY": "2",
    "CADENZA_LOG_LEVEL": "warning",
}


def start_worker(
    database_url: str, node: str, log_dir: Path, *args: str, **env: str
) -> subprocess.Popen[bytes]:
    """`cadenza worker` named `node` (empty: its default name); `env` adds or overrides
    settings (`CADENZA_…`)."""
    named = {"CADENZA_NODE_NAME": node} if node else {}
    with (log_dir / f"{node or 'default'}.log").open("ab") as log:
        return subprocess.Popen(
            [CADENZA, "worker", "--db", database_url, *args],
            stdout=log,
            stderr=subprocess.STDOUT,
            env=node_env(database_url, **named, **(WORKER_ENV | env)),
        )


def stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextmanager
def workers(
    database_url: str, log_dir: Path, names: list[str], *args: str
) -> Iterator[list[subprocess.Popen[bytes]]]:
    started = [start_worker(database_url, name, log_dir, *args) for name in names]
    try:
        yield started
    finally:
        for process in started:
            stop(process)
