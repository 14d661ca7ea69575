"""What the numbers were measured on: every report names its machine and its load."""

from __future__ import annotations

import os
import platform
import sqlite3
import statistics
import subprocess
import time
from importlib import metadata
from pathlib import Path
from typing import Any

import psutil


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "not installed"


def _git(*args: str) -> str:
    done = subprocess.run(
        ["git", *args], capture_output=True, text=True, cwd=Path(__file__).parent, check=False
    )
    return done.stdout.strip()


def _git_commit() -> str:
    """HEAD, and how many tracked files differ from it (the code measured is the working tree)."""
    commit = _git("rev-parse", "--short", "HEAD") or "unknown"
    changed = len(_git("status", "--porcelain", "--untracked-files=no").splitlines())
    return f"{commit} (+{changed} files changed)" if changed else commit


def describe_machine() -> dict[str, Any]:
    """CPU, cores, memory, OS, load average and the versions that shape the figures."""
    load_1m, load_5m, _ = os.getloadavg()
    return {
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "memory_bytes": psutil.virtual_memory().total,
        "os": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
        "load_average_1m": load_1m,
        "load_average_5m": load_5m,
        "commit": _git_commit(),
        "versions": {
            name: _version(name)
            for name in ("cadenza", "sqlalchemy", "aiosqlite", "asyncpg", "apscheduler")
        },
    }


def machine_line(machine: dict[str, Any]) -> str:
    """One line for the report header."""
    memory_gb = machine["memory_bytes"] / 2**30
    return (
        f"{machine['cpu']}, {machine['cores']} cores, {memory_gb:.0f} GiB, {machine['os']}, "
        f"Python {machine['python']}, SQLite {machine['sqlite']}, "
        f"load average {machine['load_average_1m']:.2f} at start, commit {machine['commit']}"
    )


#: Steps of the speed probe's loop (about ten milliseconds of one core).
PROBE_STEPS = 200_000
PROBE_REPEATS = 5


def speed_probe_ms() -> float:
    """Milliseconds a fixed piece of pure-Python work takes now (median of five runs).

    This VM's pace changes by the hour: the same full suite took 14 minutes in one run and
    about 50 in another (with 10-15 % of its CPU time stolen by the host), and every figure
    moved with it. Taken before each scenario, the probe says how fast the machine was when
    it ran, so that a slow run is told apart from a regression."""
    timings = []
    for _ in range(PROBE_REPEATS):
        started = time.perf_counter()
        total = 0
        for step in range(PROBE_STEPS):
            total += step * step
        timings.append((time.perf_counter() - started) * 1000)
    return statistics.median(timings)


class CpuSteal:
    """The share of every CPU's time that the hypervisor gave to others ("steal") from this
    object's creation to `percent()`: time the machine's work waited, unseen by any process."""

    def __init__(self) -> None:
        self._start = psutil.cpu_times()

    def percent(self) -> float | None:
        """None where the platform does not count steal (not Linux)."""
        end = psutil.cpu_times()
        if not hasattr(end, "steal"):
            return None
        counted = [f for f in end._fields if f not in ("guest", "guest_nice")]  # in user already
        total = sum(getattr(end, f) - getattr(self._start, f) for f in counted)
        stolen = end.steal - self._start.steal
        return 100 * stolen / total if total > 0 else 0.0
