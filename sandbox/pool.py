"""The engine's side of the zygote: pre-forked python workers, and warm ones per tenant.

`acquire(binding)` hands out a warm worker already bound to that tenant and memory limit if
one is idle (see `sandbox.warm`), else a fresh one (its socket and a pidfd to kill it by) and
asks the zygote for a replacement, so forking happens ahead of demand and off the run's
critical path. `release` parks a worker for its tenant's next run or kills it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import select
import signal
import socket
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sandbox import output_window
from sandbox.errors import SandboxError
from sandbox.framing import Channel
from sandbox.warm import Binding, WarmPolicy, WarmWorkers

_PACKAGE_ROOT = str(Path(__file__).resolve().parent.parent)
_PAGE_BYTES = os.sysconf("SC_PAGE_SIZE")


@dataclass
class WorkerHandle:
    """One worker process: talk over `sock`, kill through `pidfd` (immune to pid reuse)."""

    pid: int
    sock: socket.socket
    pidfd: int
    #: Its output window (`sandbox.output_window`), read when it ends without a report.
    window_fd: int = -1
    #: Whose runs it serves; None until its first run (and for compile-only workers).
    binding: Binding | None = None
    #: Runs served, and its CPU used and CPU budget as of its last report.
    runs: int = 0
    cpu_used_s: float = 0.0
    cpu_limit_s: float = 0.0
    #: Its address space when it was bound, before any tenant code.
    vm_base_bytes: int = 0
    _channel: Channel | None = field(default=None, repr=False)
    _statm: int | None = field(default=None, repr=False)

    def is_alive(self) -> bool:
        """False once the process has exited (its pidfd turns readable)."""
        return not select.select([self.pidfd], [], [], 0)[0]

    def channel(self) -> Channel:
        """The engine's end of its socket, made at its first run and kept for its life."""
        if self._channel is None:
            self._channel = Channel(self.sock)
        return self._channel

    def is_quiet(self) -> bool:
        """Alive, and silent since its last run (see `Channel.is_quiet`)."""
        return self.is_alive() and (self._channel is None or self._channel.is_quiet)

    def address_space_bytes(self) -> int | None:
        """Its virtual size (what RLIMIT_AS counts), read from outside through a descriptor
        kept open (reopening /proc for every run cost more than reading it); None once it
        is gone."""
        try:
            if self._statm is None:
                self._statm = os.open(f"/proc/{self.pid}/statm", os.O_RDONLY)
            return int(os.pread(self._statm, 128, 0).split()[0]) * _PAGE_BYTES
        except (OSError, ValueError, IndexError):
            return None

    def printed(self, limit_bytes: int) -> str:
        """What its current run printed so far (for a run that ended without a report)."""
        return output_window.read(self.window_fd, limit_bytes)

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError, OSError):
            signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)

    def close(self) -> None:
        if self._channel is not None:
            self._channel.close()
        self.sock.close()
        for fd in (self.pidfd, self.window_fd, self._statm):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)


@dataclass
class WorkerCounts:
    """How many python workers started, and how many crashed (died without reporting), since
    the sandbox started: for the operator's metrics."""

    started: int = 0
    crashed: int = 0


class WorkerPool:
    """Starts the zygote, keeps `size` workers ready, and reports how each worker ended."""

    def __init__(self, size: int, warm: WarmPolicy | None = None) -> None:
        self._size = size
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

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self._process = subprocess.Popen(
            [sys.executable, "-m", "sandbox.zygote", str(theirs.fileno())],
            pass_fds=[theirs.fileno()],
            env={"PYTHONPATH": _PACKAGE_ROOT, "PYTHONDONTWRITEBYTECODE": "1"},
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
            self.layers = await asyncio.wait_for(asyncio.shield(self._started), 30)
        except TimeoutError:
            await self.stop()
            raise SandboxError("the python zygote did not start within 30 s") from None

    async def acquire(self, binding: Binding | None = None, cpu_s: float = 0.0) -> WorkerHandle:
        """A worker for one run of `binding` (None: a fresh, single-use one, e.g. to compile);
        the caller must `release` it. Raises SandboxError if the zygote died."""
        if binding is not None and not self.is_stopping:
            handle = self._warm.take(binding, cpu_s)
            if handle is not None:
                return handle
        handle = await self._fresh()
        if binding is not None:
            handle.binding = binding
            handle.vm_base_bytes = handle.address_space_bytes() or 0
        return handle

    async def _fresh(self) -> WorkerHandle:
        while True:
            if self._control is None:
                raise SandboxError("the sandbox is not started; use `async with Sandbox()`")
            if self._ready.empty():
                self._request(1)
            handle = await self._ready.get()
            if handle.pid < 0:
                self._ready.put_nowait(handle)
                raise SandboxError("the python zygote has died; restart the sandbox")
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

    def release(self, handle: WorkerHandle, report: dict[str, Any] | None = None) -> None:
        """Done with a run: park the worker for its tenant's next run if its final `report`
        allows (see `sandbox.warm`), else make sure it is gone; keep the pool topped up."""
        if not self.is_stopping and self._warm.park(handle, report):
            self._top_up()
            return
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
        elif "exit" in message:
            future = self._exits.get(message["exit"])
            if future is not None and not future.done():
                future.set_result(message)
        elif "layers" in message and self._started and not self._started.done():
            self._started.set_result(message["layers"])
        for fd in fds if "pid" not in message else ():
            os.close(fd)

    def _on_zygote_lost(self) -> None:
        if self._control is not None:
            asyncio.get_running_loop().remove_reader(self._control.fileno())
        self._ready.put_nowait(WorkerHandle(-1, socket.socket(), -1))
        if self._started and not self._started.done():
            self._started.set_exception(SandboxError("the python zygote exited at start"))

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
        if self._process is not None:
            try:
                await asyncio.to_thread(self._process.wait, 10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                await asyncio.to_thread(self._process.wait)
            self._process = None
