"""Warm workers: a worker serves several runs of ONE tenant, then is recycled.

Forking and confining a worker costs milliseconds of CPU; a warm worker answers a run in well
under one. Isolation between tenants holds because a worker is bound to a `Binding` (tenant,
memory limit, runtime) at its first run and only ever handed to runs with that same binding.
It is killed, never reused, after `max_runs` runs, after `idle_s` without work, after any
outcome but ok/error (the worker exits by itself then, too), when the next run's CPU limit no
longer fits under the worker's CPU budget or it has used `max_cpu_s` in all, when it holds
`MAX_HELD` scripts, and when earlier runs left more than an eighth of its memory limit behind
(so a warm run always has at least 7/8 of its memory limit, and never more than the limit).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sandbox.contract import RuntimeName

if TYPE_CHECKING:
    from sandbox.handle import WorkerHandle
    from sandbox.report import WorkerReport

#: Statuses after which a worker may serve its tenant's next run; anything else may have left
#: it in a bad state (a half-run script, a MemoryError mid-allocation), so it exits.
REUSABLE_STATUSES = frozenset({"ok", "error"})
#: Scripts a worker keeps loaded for later runs; one that holds more is recycled.
MAX_HELD = 32


@dataclass(frozen=True)
class Binding:
    """Whose runs a worker serves: its memory limit and runtime are fixed at its first run."""

    tenant_id: str
    memory_bytes: int
    runtime: RuntimeName = RuntimeName.PYTHON


@dataclass(frozen=True)
class WarmPolicy:
    """When a warm worker is recycled."""

    #: Runs one worker serves before it is killed.
    max_runs: int = 200
    #: Seconds a worker may wait for its tenant's next run.
    idle_s: float = 30.0
    #: Idle warm workers kept over all tenants (the least recently used goes first). Each costs
    #: ~4 MB of its own memory; too few and a burst over many tenants forks a worker every few
    #: runs (measured: 16 idle workers for 10 busy tenants meant a fork per 4.5 runs).
    max_idle: int = 64
    #: CPU seconds a worker may have used in all and still be handed a run. RLIMIT_CPU counts
    #: whole seconds of the process's life, on the kernel's tick-sampled clock, which can run
    #: ahead of the CPU time the worker measures (seen on a VM: ~10-20 %); a young worker keeps
    #: that error small, so each run's CPU limit means what it says.
    max_cpu_s: float = 1.0


class WarmWorkers:
    """Idle workers waiting for their tenant's next run, each with an idle timer."""

    def __init__(self, policy: WarmPolicy, retire: Callable[[WorkerHandle], None]) -> None:
        self._policy = policy
        self._retire = retire
        #: By `id(handle)`, not by pid: a pid may be reused by another tenant's worker while
        #: a dead worker's entry waits for its timer.
        self._idle: dict[int, tuple[WorkerHandle, asyncio.TimerHandle]] = {}
        #: The same idle workers' keys by binding, in the order they were parked (a run's
        #: lookup would otherwise compare its binding with every idle worker's).
        self._idle_of: dict[Binding, dict[int, None]] = {}
        #: Workers alive per binding, idle or busy.
        self._bound: Counter[Binding] = Counter()

    def bind(self, handle: WorkerHandle, binding: Binding) -> None:
        """A fresh worker takes its first run of `binding`."""
        handle.binding = binding
        self._bound[binding] += 1

    def forget(self, handle: WorkerHandle) -> None:
        """A bound worker is gone."""
        if handle.binding is not None:
            self._bound[handle.binding] -= 1
            if self._bound[handle.binding] <= 0:
                del self._bound[handle.binding]

    def take(self, binding: Binding, cpu_s: float) -> WorkerHandle | None:
        """The most recently parked live worker bound to `binding` that is still young in CPU
        and whose CPU budget holds a whole run of `cpu_s` (plus a second: RLIMIT_CPU rounds
        up), or None."""
        for key in reversed(list(self._idle_of.get(binding, ()))):
            handle = self._unpark(key)
            if handle.binding == binding and handle.is_quiet() and self._has_cpu_for(handle, cpu_s):
                return handle
            self._retire(handle)
        return None

    def park(self, handle: WorkerHandle, report: WorkerReport | None) -> bool:
        """Keep `handle` for its tenant's next run if it may serve one (`report` is its final
        report on the run just ended, None if it never sent one). False: retire it."""
        binding = handle.binding
        if binding is None or report is None or not self._may_serve_again(handle, report):
            return False
        handle.runs += 1
        handle.cpu_used_s, handle.cpu_limit_s = report.cpu_total_s, report.cpu_limit_s
        if len(self._idle) >= self._policy.max_idle:
            self._retire(self._unpark(next(iter(self._idle))))
        timer = asyncio.get_running_loop().call_later(self._policy.idle_s, self._expire, handle)
        self._idle[id(handle)] = (handle, timer)
        self._idle_of.setdefault(binding, {})[id(handle)] = None
        return True

    def _unpark(self, key: int) -> WorkerHandle:
        """Take an idle worker out of the idle sets; its idle timer stops."""
        handle, timer = self._idle.pop(key)
        timer.cancel()
        binding = handle.binding
        assert binding is not None  # only bound workers are parked
        keys = self._idle_of[binding]
        del keys[key]
        if not keys:
            del self._idle_of[binding]
        return handle

    def _has_cpu_for(self, handle: WorkerHandle, cpu_s: float) -> bool:
        used_s = handle.cpu_used_s
        return used_s < self._policy.max_cpu_s and used_s + cpu_s + 1 <= handle.cpu_limit_s

    def _may_serve_again(self, handle: WorkerHandle, report: WorkerReport) -> bool:
        if handle.binding is None or report.status not in REUSABLE_STATUSES:
            return False
        if handle.runs + 1 >= self._policy.max_runs or len(handle.holds) > MAX_HELD:
            return False
        size = handle.memory_bytes()
        growth_limit = handle.binding.memory_bytes // 8
        return size is not None and size - handle.base_memory_bytes <= growth_limit

    def _expire(self, handle: WorkerHandle) -> None:
        if id(handle) in self._idle:
            self._retire(self._unpark(id(handle)))

    def close(self) -> None:
        """Retire every idle worker (the sandbox is stopping)."""
        for handle, timer in self._idle.values():
            timer.cancel()
            self._retire(handle)
        self._idle.clear()
        self._idle_of.clear()
