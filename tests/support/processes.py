"""Running the real `cadenza` command: one-shot CLI calls and a `serve` subprocess."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil

from support.ports import free_port

CADENZA = str(Path(sys.executable).with_name("cadenza"))
#: Longest wait for the next line of a starting `serve` (its processes start on a busy machine).
STARTUP_TIMEOUT_S = 90.0


#: A test server answers one client: one API process (the default is one per core) saves
#: every start an interpreter; tests of several API processes ask for them.
ONE_API_PROCESS = {"CADENZA_API_WORKERS": "1"}

#: The operator key of the test processes on PostgreSQL (which has no default key file).
TEST_SECRET_KEY = "f6XWd3f0m3ayFI0pnx9LZaHDm-V7KGAn8xYvJf5v6fQ="


def cli_env(**extra: str) -> dict[str, str]:
    """A clean environment: nothing of the developer's CADENZA_* settings leaks into a test."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CADENZA_")}
    env.update(extra)
    return env


def node_env(database_url: str, **extra: str) -> dict[str, str]:
    """`cli_env` for a `serve` or `worker` on `database_url`: on PostgreSQL with the tests'
    operator key (every node of one database needs the same key), and one API process beside
    the engine, unless `extra` says otherwise."""
    keyed = {"CADENZA_SECRET_KEYS": TEST_SECRET_KEY} if "postgresql" in database_url else {}
    return cli_env(**(keyed | ONE_API_PROCESS | extra))


def run_cli(
    *args: str, cwd: Path | None = None, timeout_s: float = 60, **kwargs: object
) -> subprocess.CompletedProcess[str]:
    """Run `cadenza ARGS…` to completion and return what it printed and its exit code."""
    return subprocess.run(
        [CADENZA, *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=timeout_s,
        env=cli_env(),
        **kwargs,  # type: ignore[call-overload]
    )


def create_tenant(database_url: str, name: str) -> dict[str, str]:
    """A new tenant through the real CLI: {"tenant_id", "name", "api_key"}."""
    done = run_cli("tenant", "create", name, "--json", "--db", database_url)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@dataclass
class Server:
    """A running `cadenza serve`: its base URL, the demo key it printed, its output so far
    (collected for as long as it runs)."""

    process: subprocess.Popen[str]
    base_url: str
    database_url: str
    demo_key: str | None
    lines: list[str] = field(default_factory=list)


def _pump(stream: object, sink: queue.Queue[str | None]) -> None:
    # The test may close the stream first: a `serve` whose supervisor was killed leaves
    # children that still hold the pipe while they stop.
    with contextlib.suppress(ValueError):
        for line in stream:  # type: ignore[attr-defined]
            sink.put(line)
    sink.put(None)


def kill_tree(process: subprocess.Popen[Any]) -> None:
    """SIGKILL `process` and every process under it at once, as a crash of the machine would:
    killing only `serve`'s supervisor lets its children stop cleanly (they are told to)."""
    descendants = psutil.Process(process.pid).children(recursive=True)
    for victim in [*descendants, psutil.Process(process.pid)]:
        with contextlib.suppress(psutil.NoSuchProcess):
            victim.kill()
    process.wait()


def _keep(source: queue.Queue[str | None], sink: list[str]) -> None:
    """Keep collecting a server's output after its start, for tests that read its log."""
    while (line := source.get()) is not None:
        sink.append(line)


@contextmanager
def running_server(
    database_url: str,
    *extra_args: str,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
) -> Iterator[Server]:
    """Start `cadenza serve` on a free port; yield once its engine runs (the banner) and an API
    process has reported its startup complete."""
    port = free_port()
    process = subprocess.Popen(
        [CADENZA, "serve", "--db", database_url, "--port", str(port), *extra_args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=node_env(database_url, **(env or {})),
        cwd=cwd,
    )
    lines: queue.Queue[str | None] = queue.Queue()
    threading.Thread(target=_pump, args=(process.stdout, lines), daemon=True).start()
    server = Server(process, f"http://127.0.0.1:{port}", database_url, None)
    try:
        banner = api_up = False
        while not (banner and api_up):
            line = lines.get(timeout=STARTUP_TIMEOUT_S)
            if line is None:
                raise RuntimeError("cadenza serve exited during startup:\n" + "".join(server.lines))
            server.lines.append(line)
            if match := re.search(r"API key \(shown once\): (\S+)", line):
                server.demo_key = match.group(1)
            banner = banner or line.startswith("serving ")
            api_up = api_up or "Application startup complete" in line
        threading.Thread(target=_keep, args=(lines, server.lines), daemon=True).start()
        yield server
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stdout is not None:
            process.stdout.close()
