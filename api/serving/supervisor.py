"""The supervisor: `cadenza serve`'s own process. It starts the engine process and the API
processes (on the socket it bound) side by side, and waits.

One stop for all: SIGTERM or SIGINT (Ctrl-C) stops the API processes and drains the engine
at once; a second signal cuts the engine's drain short. A child that dies on its own takes the
whole down: the others are stopped the same way, the log says which child died and how, and
`serve` exits 1 so that its process manager restarts it (a restarted engine takes back its
claims at once: `engine.loop.takeback`). Restarting one child in place would hide a crash loop from
the process manager and leave the API answering for an engine that is not there.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import socket
import time
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess

from api import shared_buckets
from api.serving.api_process import run_api
from api.serving.engine_process import run_engine
from api.serving.layout import EngineStarted, Layout

log = logging.getLogger("cadenza.serve")
#: After the drain's grace, how long a child may take to exit before it is killed.
KILL_AFTER_S = 15.0
#: How long an engine that has closed its files may take to become a readable exit code.
ENDING_S = 5.0
EXIT_OK = 0
EXIT_CHILD_DIED = 1
EXIT_ENGINE_DID_NOT_START = 2
#: Children are forked from this process, which has imported the whole application once and
#: runs no thread, loop or connection when it forks (`api.serving.layout`).
_FORK = multiprocessing.get_context("fork")


class Supervisor:
    """The children of one `serve` and the stop signals it has received."""

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        layout.api_metrics_dir.mkdir(exist_ok=True)
        self.children: dict[str, BaseProcess] = {}
        #: The children whose end `_notice_deaths` has read.
        self._ended: set[str] = set()
        self.signals = 0
        self._stopping_since: float | None = None
        self._exit_code = EXIT_OK
        self._signal_r, self._signal_w = os.pipe()
        self._handlers_before = {
            signum: signal.signal(signum, self._received)
            for signum in (signal.SIGTERM, signal.SIGINT)
        }

    def _received(self, signum: int, frame: object) -> None:
        os.write(self._signal_w, b"!")

    def start(self, listener: socket.socket) -> EngineStarted | None:
        """Start the engine process, then the API processes on `listener` while the engine
        starts; the engine's report once its node runs, or None if it ended (or a stop was
        asked) first."""
        report, sending_end = _FORK.Pipe(duplex=False)
        engine = _FORK.Process(
            target=run_engine, args=(self.layout, sending_end), name="cadenza-engine"
        )
        engine.start()
        sending_end.close()
        self.children["engine process"] = engine
        self._start_api(listener)
        ready = wait([report, engine.sentinel, self._signal_r])
        if self._signal_r in ready:
            self._on_signal()
        elif (started := _report_of(report)) is not None:
            log.info("engine process started (pid %s)", engine.pid)
            return started
        else:
            engine.join(ENDING_S)  # it has closed its files: its exit code comes at once
            ended = "ended" if engine.exitcode is None else _how_it_ended(engine.exitcode)
            log.error("the engine process (pid %s) %s before it started", engine.pid, ended)
            self._exit_code = EXIT_ENGINE_DID_NOT_START
            self._stop()
        return None

    def _start_api(self, listener: socket.socket) -> None:
        shared_buckets.prepare(self.layout.throttles_path)
        for number in range(1, self.layout.settings.api_workers + 1):
            process = _FORK.Process(
                target=run_api, args=(self.layout, [listener]), name="cadenza-api"
            )
            process.start()
            self.children[f"API process {number}"] = process
            log.info("API process %s started (pid %s)", number, process.pid)

    def run(self) -> int:
        """Wait until the end of every child has been noticed; the exit code for `serve`."""
        while waiting := [p for role, p in self.children.items() if role not in self._ended]:
            timeout_s = self._time_left_s()
            ready = wait([*(p.sentinel for p in waiting), self._signal_r], timeout_s)
            if self._signal_r in ready:
                self._on_signal()
            elif not ready and timeout_s is not None:
                self._kill_the_rest()
            self._notice_deaths()
        return self._exit_code

    def _on_signal(self) -> None:
        count = len(os.read(self._signal_r, 64))
        self.signals += count
        if self._stopping_since is None:
            log.info("stopping: the API processes end, the engine drains")
            self._stop()
            count -= 1
        if count > 0:
            log.info("a second stop signal: the engine interrupts what still runs")
            self._signal_all()

    def _notice_deaths(self) -> None:
        """A child leaves the wait only here, once its exit code is read. Its sentinel reads
        as ended a moment before the exit code can be read (the kernel closes a dying
        process's files before it becomes a zombie), so a wait over the children whose exit
        code is still unknown could drop a death that no one has logged."""
        for role, process in self.children.items():
            if role in self._ended or process.exitcode is None:
                continue
            self._ended.add(role)
            if self._stopping_since is None:
                log.error(
                    "the %s (pid %s) %s; stopping `cadenza serve` (a process manager restarts it)",
                    role,
                    process.pid,
                    _how_it_ended(process.exitcode),
                )
                self._exit_code = EXIT_CHILD_DIED
                self._stop()
        self._note_unclean_exits()

    def _note_unclean_exits(self) -> None:
        engine = self.children.get("engine process")
        if engine is not None and engine.exitcode not in (None, 0) and self._exit_code == 0:
            self._exit_code = EXIT_CHILD_DIED

    def _stop(self) -> None:
        self._stopping_since = time.monotonic()
        self._signal_all()

    def _signal_all(self) -> None:
        for process in self._alive().values():
            process.terminate()

    def _alive(self) -> dict[str, BaseProcess]:
        return {role: p for role, p in self.children.items() if p.exitcode is None}

    def _time_left_s(self) -> float | None:
        if self._stopping_since is None:
            return None
        deadline = self._stopping_since + self.layout.settings.stop_grace_s + KILL_AFTER_S
        return max(0.0, deadline - time.monotonic())

    def __enter__(self) -> Supervisor:
        return self

    def __exit__(self, *exc_info: object) -> None:
        """Should the supervisor itself fail, no child outlives it: multiprocessing would
        otherwise wait at exit for API processes that nobody asked to stop. The stop signals'
        handlers before it come back, and its wake-up pipe is closed."""
        for process in self._alive().values():
            process.kill()
            process.join()
        for signum, handler in self._handlers_before.items():
            signal.signal(signum, handler)
        os.close(self._signal_r)
        os.close(self._signal_w)

    def _kill_the_rest(self) -> None:
        for role, process in self._alive().items():
            log.error("the %s (pid %s) did not stop in time; killing it", role, process.pid)
            process.kill()
            process.join()
        if self._exit_code == EXIT_OK:
            self._exit_code = EXIT_CHILD_DIED


def _report_of(report: Connection) -> EngineStarted | None:
    """The engine's report, or None if it ended before sending one whole (the pipe then
    reads as ended, or holds a cut message)."""
    if not report.poll():
        return None
    try:
        started: EngineStarted = report.recv()
    except (EOFError, OSError):
        return None
    return started


def _how_it_ended(exitcode: int) -> str:
    if exitcode < 0:
        return f"was killed by {signal.Signals(-exitcode).name}"
    return f"exited with code {exitcode}"
