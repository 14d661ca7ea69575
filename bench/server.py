"""A real `cadenza serve` process for a scenario, and how much CPU and memory its tree uses."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import psutil

from bench.peer_api import URL_VARIABLE
from bench.processes import clean_env, start_cadenza, stop

READY_TIMEOUT_S = 600.0


@dataclass
class Served:
    process: subprocess.Popen[bytes]
    base_url: str
    ready_s: float

    def tree(self) -> list[psutil.Process]:
        main = psutil.Process(self.process.pid)
        return [main, *main.children(recursive=True)]

    def rss_bytes(self) -> tuple[int, int]:
        """Resident memory of `serve`'s own processes (supervisor, engine, API), and of them
        with their sandbox workers."""
        main = psutil.Process(self.process.pid)
        own = [main, *main.children()]
        return _rss(own), _rss(self.tree())

    def cpu_s(self) -> float:
        total = 0.0
        for process in self.tree():
            with contextlib.suppress(psutil.NoSuchProcess):
                times = process.cpu_times()
                total += times.user + times.system
        return total


def _rss(processes: list[psutil.Process]) -> int:
    total = 0
    for process in processes:
        with contextlib.suppress(psutil.NoSuchProcess):
            total += process.memory_info().rss
    return total


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def serving(url: str, log_path: Path, settings: dict[str, str] | None = None) -> Iterator[Served]:
    """`cadenza serve --no-demo` on a free port, with `settings` (environment variables) on
    top of a clean environment; yields once /readyz answers 200."""
    port = _free_port()
    started = time.monotonic()
    args = ["serve", "--no-demo", "--db", url, "--port", str(port)]
    serve = start_cadenza(args, log_path, settings)
    with _until_ready(serve, "cadenza serve", port, "/readyz", log_path) as up:
        yield Served(up, f"http://127.0.0.1:{port}", time.monotonic() - started)


@contextlib.contextmanager
def peer_serving(url: str, log_path: Path, workers: int) -> Iterator[Served]:
    """The bare Starlette peer of `GET /v1/rules` (`bench.peer_api`) on `url`, in `workers`
    uvicorn processes on a free port; yields once it answers."""
    port = _free_port()
    started = time.monotonic()
    args = [sys.executable, "-m", "uvicorn", "--factory", "bench.peer_api:from_environment"]
    args += ["--port", str(port), "--workers", str(workers), "--log-level", "warning"]
    with log_path.open("ab") as log:
        process = subprocess.Popen(
            args, stdout=log, stderr=subprocess.STDOUT, env=clean_env() | {URL_VARIABLE: url}
        )
    with _until_ready(process, "the bare peer", port, "/rules?tenant_id=none", log_path) as up:
        yield Served(up, f"http://127.0.0.1:{port}", time.monotonic() - started)


@contextlib.contextmanager
def _until_ready(
    process: subprocess.Popen[bytes], name: str, port: int, path: str, log_path: Path
) -> Iterator[subprocess.Popen[bytes]]:
    """`process` (`name` in errors) once `path` on `port` answers 200; stopped when the block
    ends."""
    started = time.monotonic()
    try:
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"{name} exited with {process.returncode}: see {log_path}")
            if time.monotonic() - started > READY_TIMEOUT_S:
                raise RuntimeError(
                    f"{name} not ready after {READY_TIMEOUT_S:.0f} s: see {log_path}"
                )
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"http://127.0.0.1:{port}{path}", timeout=2).status_code == 200:
                    break
            time.sleep(0.05)
        yield process
    finally:
        stop(process)
