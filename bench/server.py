"""A real `cadenza serve` process for a scenario, and how much CPU and memory its tree uses."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import psutil

from bench.processes import start_cadenza, stop

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
    process = start_cadenza(args, log_path, settings)
    base_url = f"http://127.0.0.1:{port}"
    try:
        while True:
            if process.poll() is not None:
                raise RuntimeError(
                    f"cadenza serve exited with {process.returncode}: see {log_path}"
                )
            if time.monotonic() - started > READY_TIMEOUT_S:
                raise RuntimeError(f"cadenza serve not ready after {READY_TIMEOUT_S:.0f} s")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{base_url}/readyz", timeout=2).status_code == 200:
                    break
            time.sleep(0.05)
        yield Served(process, base_url, time.monotonic() - started)
    finally:
        stop(process)
