"""The engine's side of the zygote: pre-forked workers, and warm ones per tenant.

`acquire(binding)` hands out a warm worker already bound to that tenant, memory limit and
runtime if one is idle (see `sandbox.warm`), else a fresh one (its socket and a pidfd to kill
it by) and asks the zygote for a replacement, so forking happens ahead of demand and off the
run's critical path. `release` parks a worker for its tenant's next run or kills it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sandbox.contract import RuntimeName
from sandbox.errors import SandboxError
from sandbox.handle import WorkerHandle
from sandbox.report import WorkerReport
from sandbox.warm import Binding, WarmPolicy, WarmWorkers

_PACKAGE_ROOT = str(Path(__file__).resolve().parent.parent)


@dataclass
class WorkerCounts:
    """How many workers started, and how many crashed (died without reporting), since
    the sandbox started: for the operator's metrics."""

    started: int = 0
    crashed: int = 0


class WorkerPool:
    """Starts the zygote, keeps `size` workers ready, and reports how each worker ended.

    The zygote loads what the workers of `runtimes` need (compiled modules from `cache_dir`
    when given) before it forks any."""

    def __init__(
        self,
        size: int,
        warm: WarmPolicy | None = None,
        runtimes: tuple[RuntimeName, ...] = tuple(RuntimeName),
        cache_dir: Path | None = None,
        on_demand: bool = False,
    ) -> None:
        self._size = size
        #: Started by the first `acquire` instead of by the owner (`SandboxConfig.on_demand`).
        self._on_demand = on_demand
        self._start_lock = asyncio.Lock()
        self._zygote_config = json.dumps(
            {"runtimes": list(runtimes), "cache_dir": str(cache_dir) if cache_dir else None}
        )
        self._warm = WarmWorkers(warm or WarmPolicy(), self.release)
        self._requested = 0
        self._ready: asyncio.Queue[WorkerHandle] = asyncio.Queue()
        self._exits: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._control: socket.socket | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._started: asyncio.Future[dict[str, bool]] | None = None
        self.layers: dict[str, bool] = {}
        self.is_stopping = False
        #: Workers forked for this pool, and of them those that died without reporting.
        self.counts = WorkerCounts()

    @property
    def zygote_pid(self) -> int | None:
        return self._process.pid if self._process else None

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self._process = subprocess.Popen(
            [sys.executable, "-m", "sandbox.zygote", str(theirs.fileno()), self._zygote_config],
            pass_fds=[theirs.fileno()],
            # One malloc arena: a second thread (the wasm deadline timer) would otherwise
            # reserve 64 MiB of address space for its own, counted by RLIMIT_AS.
            env={
                "PYTHONPATH": _PACKAGE_ROOT,
                "PYTHONDONTWRITEBYTECODE": "1",
                "MALLOC_ARENA_MAX": "1",
            },
            cwd="/",
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
        )
        theirs.close()
        ours.setblocking(False)
        self._control = ours
        self._started = loop.create_future()
        loop.add_reader(ours.fileno(), self._on_readable)
        self._request(self._size)
        try:
            await asyncio.wait_for(asyncio.shield(self._started), 60)
        except TimeoutError:
            await self.stop()
            raise SandboxError("the sandbox's zygote did not start within 60 s") from None

    async def acquire(self, binding: Binding | None = None, cpu_s: float = 0.0) -> WorkerHandle:
        """A worker for one run of `binding` (None: a fresh, single-use one, e.g. to compile);
        the caller must `release` it. Raises SandboxError if the zygote died."""
        if binding is not None and not self.is_stopping:
            handle = self._warm.take(binding, cpu_s)
            if handle is not None:
                return handle
        handle = await self._fresh()
        if binding is not None:
            self._warm.bind(handle, binding)
            handle.base_memory_bytes = handle.memory_bytes() or 0
        return handle

    async def _fresh(self) -> WorkerHandle:
        if self._on_demand and self._process is None and not self.is_stopping:
            async with self._start_lock:
                if self._process is None and not self.is_stopping:
                    await self.start()
        while True:
            if self._control is None:
                raise SandboxError("the sandbox is not started; use `async with Sandbox()`")
            if self._ready.empty():
                self._request(1)
            handle = await self._ready.get()
            if handle.pid < 0:
                self._ready.put_nowait(handle)
                raise SandboxError("the sandbox's zygote has died; restart the sandbox")
            if handle.is_alive():
                self._exits[handle.pid] = asyncio.get_running_loop().create_future()
                return handle
            self.release(handle)  # died while waiting (killed from outside): take another

    async def exit_report(self, handle: WorkerHandle, timeout_s: float) -> dict[str, Any] | None:
        """How the worker ended (signal, exit code, rusage), or None if not known in time."""
        future = self._exits.get(handle.pid)
        if future is None:
            return None
        with contextlib.suppress(TimeoutError):
            return await asyncio.wait_for(asyncio.shield(future), timeout_s)
        return None

    def release(self, handle: WorkerHandle, report: WorkerReport | None = None) -> None:
        """Done with a run: park the worker for its tenant's next run if its final `report`
        allows (see `sandbox.warm`), else make sure it is gone; keep the pool topped up."""
        if not self.is_stopping and self._warm.park(handle, report):
            self._top_up()
            return
        self._warm.forget(handle)
        handle.kill()
        handle.close()
        self._exits.pop(handle.pid, None)
        self._top_up()

    def _top_up(self) -> None:
        if self._ready.qsize() + self._requested < self._size:
            self._request(1)

    def _request(self, count: int) -> None:
        if self._control is not None:
            with contextlib.suppress(OSError):
                self._control.send(json.dumps({"spawn": count}).encode())
                self._requested += count

    def _on_readable(self) -> None:
        assert self._control is not None
        while True:
            try:
                data, fds, _, _ = socket.recv_fds(self._control, 4096, 3)
            except BlockingIOError:
                return
            except OSError:
                data, fds = b"", []
            if not data:
                self._on_zygote_lost()
                return
            self._dispatch(json.loads(data), fds)

    def _dispatch(self, message: dict[str, Any], fds: list[int]) -> None:
        if "pid" in message and len(fds) == 3:
            self._requested -= 1
            self.counts.started += 1
            sock = socket.socket(fileno=fds[0])
            self._ready.put_nowait(WorkerHandle(message["pid"], sock, fds[1], fds[2]))
        elif "unready" in message:  # it did not confine itself in time: ask for another
            self._requested -= 1
            self._top_up()
        elif "exit" in message:
            future = self._exits.get(message["exit"])
            if future is not None and not future.done():
                future.set_result(message)
        elif "layers" in message:  # kept even if the start that waited for it was cancelled
            self.layers = message["layers"]
            if self._started and not self._started.done():
                self._started.set_result(self.layers)
        for fd in fds if "pid" not in message else ():
            os.close(fd)

    def _on_zygote_lost(self) -> None:
        if self._control is not None:
            asyncio.get_running_loop().remove_reader(self._control.fileno())
        self._end_waits("the sandbox's zygote exited at start")

    def _end_waits(self, why: str) -> None:
        """Wake what waits on the zygote, which will not answer: a run waiting for a worker
        (it finds the dead-zygote mark) and a start waiting for its report (`why`)."""
        unused = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        unused.close()  # the mark's socket: nothing is behind it, and nothing leaks
        self._ready.put_nowait(WorkerHandle(-1, unused, -1))
        if self._started and not self._started.done():
            self._started.set_exception(SandboxError(why))
            self._started.exception()  # read: a start that gave up waiting leaves no warning

    async def stop(self) -> None:
        """Stop the zygote, which kills every worker (runs in progress end as `killed`)."""
        self.is_stopping = True
        self._warm.close()
        if self._control is not None:
            with contextlib.suppress(ValueError, RuntimeError):
                asyncio.get_running_loop().remove_reader(self._control.fileno())
            self._control.close()
            self._control = None
        while not self._ready.empty():
            self._ready.get_nowait().close()
        self._end_waits("the sandbox stopped while its zygote started")
        if self._process is not None:
            try:
                await asyncio.to_thread(self._process.wait, 10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                await asyncio.to_thread(self._process.wait)
            self._process = None
