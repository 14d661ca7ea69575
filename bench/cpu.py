"""Where a `cadenza worker` spends its CPU during a drain, per thread and per process.

Issue 20's figure is the event loop's CPU per action: the loop is one thread (the process's
main thread), and a process total would hide it among the database driver's threads. The
sandbox's worker processes are counted apart, the ones that ended during the drain included
(their CPU shows in the zygote's reaped-children times).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

import psutil

_TICKS_PER_S = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class CpuUse:
    """CPU seconds one or more cadenza workers have used so far."""

    event_loop_s: float = 0.0
    #: The database driver's threads, the metrics server's, any other thread of the worker.
    other_threads_s: float = 0.0
    #: The sandbox: its zygote and every worker process it forked.
    sandbox_s: float = 0.0

    def __add__(self, other: CpuUse) -> CpuUse:
        return CpuUse(
            self.event_loop_s + other.event_loop_s,
            self.other_threads_s + other.other_threads_s,
            self.sandbox_s + other.sandbox_s,
        )

    def parts(self) -> tuple[tuple[str, float], ...]:
        """(where, seconds) of each part, in the order the reports show them."""
        return (
            ("event loop", self.event_loop_s),
            ("other threads", self.other_threads_s),
            ("sandbox", self.sandbox_s),
        )

    def __sub__(self, other: CpuUse) -> CpuUse:
        return CpuUse(
            self.event_loop_s - other.event_loop_s,
            self.other_threads_s - other.other_threads_s,
            self.sandbox_s - other.sandbox_s,
        )


def cpu_use(pids: Sequence[int]) -> CpuUse:
    """The CPU used so far by the cadenza workers `pids`."""
    total = CpuUse()
    for pid in pids:
        main_s = _stat_s(f"/proc/{pid}/task/{pid}/stat")
        # the process's own times include the threads that have ended (a thread pool's)
        total += CpuUse(main_s, _stat_s(f"/proc/{pid}/stat") - main_s, _descendants_s(pid))
    return total


def _stat_s(path: str) -> float:
    """utime + stime of a /proc stat file, in seconds."""
    with open(path) as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / _TICKS_PER_S


def _descendants_s(pid: int) -> float:
    total = 0.0
    for child in psutil.Process(pid).children(recursive=True):
        try:
            times = child.cpu_times()
        except psutil.NoSuchProcess:
            continue
        total += times.user + times.system + times.children_user + times.children_system
    return total
