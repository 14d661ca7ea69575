"""Real `cadenza worker` processes (or `cadenza serve`, whose engine runs in a process of its
own) for the crash, stop and multi-node tests."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
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
#: What `serve` needs on top to run beside other tests: a free port, no demo tenant.
SERVE_ARGS = ("--port", "0", "--no-demo")
SERVE_START_TIMEOUT_S = 180.0


def start_worker(
    database_url: str,
    node: str,
    log_dir: Path,
    *args: str,
    command: str = "worker",
    **env: str,
) -> subprocess.Popen[bytes]:
    """`cadenza worker` (or `command`: `serve`) named `node` (empty: its default name); `env`
    adds or overrides settings (`CADENZA_…`)."""
    named = {"CADENZA_NODE_NAME": node} if node else {}
    extra = SERVE_ARGS if command == "serve" else ()
    log_path = log_dir / f"{node or 'default'}.log"
    with log_path.open("ab") as log:
        offset = log.tell()
        process = subprocess.Popen(
            [CADENZA, command, "--db", database_url, *extra, *args],
            stdout=log,
            stderr=subprocess.STDOUT,
            env=node_env(database_url, **named, **(WORKER_ENV | env)),
        )
    if command == "serve":
        _until_serving(process, log_path, offset)
    return process


def _until_serving(process: subprocess.Popen[bytes], log_path: Path, offset: int) -> None:
    """Wait for `serve`'s banner (printed once its engine process runs): its three processes
    take longer to start than a worker's one, and the tests' bounds count from the start."""
    deadline = time.monotonic() + SERVE_START_TIMEOUT_S
    while b"\nserving " not in b"\n" + log_path.read_bytes()[offset:]:
        assert process.poll() is None, log_path.read_text(errors="replace")
        assert time.monotonic() < deadline, log_path.read_text(errors="replace")
        time.sleep(0.1)


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
