"""Real `cadenza worker` processes for the crash and multi-node tests."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from support.processes import CADENZA, node_env
from support.waiting import eventually

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
    database_url: str, log_dir: Path, names: list[str], *args: str, **env: str
) -> Iterator[list[subprocess.Popen[bytes]]]:
    """`cadenza worker` per name, stopped at the end; `env` as for `start_worker`."""
    started = [start_worker(database_url, name, log_dir, *args, **env) for name in names]
    try:
        yield started
    finally:
        for process in started:
            stop(process)


async def kill_mid_call(
    database_url: str,
    log_dir: Path,
    called: Callable[[], Awaitable[bool]],
    release: threading.Event,
    finished: Callable[[], Awaitable[bool]],
    **env: str,
) -> None:
    """A worker is killed -9 once `called` (a call of its run is in flight); then the call's
    receiver is released and a second worker takes the occurrence back, until `finished`."""
    first = start_worker(database_url, "first", log_dir, **env)
    try:
        await eventually(called, timeout_s=60)
        os.kill(first.pid, signal.SIGKILL)
        first.wait()
    finally:
        stop(first)
    release.set()
    second = start_worker(database_url, "second", log_dir, **env)
    try:
        await eventually(finished, timeout_s=90)
    finally:
        stop(second)
