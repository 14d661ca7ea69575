"""Where a warm worker's CPU goes: `python -m bench.worker_phases [--runs N] [--profile]`.

Forks one worker per runtime straight from the executors the zygote would load (not
confined: the phases measured are the same, the confinement costs nothing per run), sends
it the trivial script once and then `runs` jobs that name it as held, back to back, over a
socketpair, and reads the worker's CPU from `wait4` once it has exited: CPU per run,
which a loaded machine disturbs far less than wall time. With `--profile` the worker runs
under cProfile and prints its functions by own CPU time when the engine hangs up, to see
which phase (decoding the job, the rewind, the guest's call, the report) costs what.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import tempfile
import time
from pathlib import Path

import wasmtime

from bench.sandbox import CONTEXT, TRIVIAL
from sandbox import framing, isolation, output_window
from sandbox.contract import Limits, RuntimeName
from sandbox.executors import Executors
from sandbox.framing import Kind
from sandbox.job import CodeForm, Job, Mode
from sandbox.wasm.guest import GuestRun
from sandbox.worker import Worker

RUNTIMES = (RuntimeName.MICROPYTHON, RuntimeName.WASM)
#: A script of the size tenants write (a few functions, a loop over its parameters), for the
#: share of compiling in a run; it uses no host call the harness would have to answer.
MEDIUM_MICROPYTHON = """
LEVELS = {"low": 1, "mid": 5, "high": 10}


def level_of(value, levels):
    found = "none"
    for name, threshold in sorted(levels.items(), key=lambda item: item[1]):
        if value >= threshold:
            found = name
    return found


def summary(values):
    total = sum(values)
    return {"count": len(values), "total": total, "mean": total / max(1, len(values))}


def main(ctx):
    values = [ctx.attempt * n for n in range(20)]
    by_level = {}
    for value in values:
        key = level_of(value, LEVELS)
        by_level[key] = by_level.get(key, 0) + 1
    return {"levels": by_level, "summary": summary(values), "rule": ctx.rule.name}
"""
SCRIPTS = {"trivial": TRIVIAL, "medium": {**TRIVIAL, RuntimeName.MICROPYTHON: MEDIUM_MICROPYTHON}}
LIMITS = Limits(timeout_s=60.0)
#: The fuel of each runtime's last run (the guest's own work, deterministic).
_FUEL: dict[RuntimeName, int] = {}
_SCRIPT: dict[RuntimeName, str] = {}


def worker_cpu_per_run_ms(
    executors: Executors, runtime: RuntimeName, runs: int, profile: bool
) -> tuple[float, float]:
    """(worker CPU per run, engine-side round-trip median), both in ms, for `runs` held jobs."""
    engine_end, worker_end = socket.socketpair()
    pid = os.fork()
    if pid == 0:
        engine_end.close()
        _become_worker(executors, worker_end, profile)
    worker_end.close()
    receiver = framing.Receiver(engine_end)
    round_trips_s = [_round_trip(engine_end, receiver, runtime, CodeForm.SOURCE)]
    cpu_s = _child_cpu_s(pid, engine_end, receiver, runs, round_trips_s, runtime)
    return cpu_s * 1000 / runs, statistics.median(round_trips_s) * 1000


def _child_cpu_s(
    pid: int,
    sock: socket.socket,
    receiver: framing.Receiver,
    runs: int,
    trips: list[float],
    runtime: RuntimeName,
) -> float:
    for _ in range(runs):
        trips.append(_round_trip(sock, receiver, runtime, CodeForm.HELD))
    sock.close()
    _, _, usage = os.wait4(pid, 0)
    return usage.ru_utime + usage.ru_stime


def _round_trip(
    sock: socket.socket, receiver: framing.Receiver, runtime: RuntimeName, form: CodeForm
) -> float:
    started_s = time.perf_counter()
    job = Job(runtime, Mode.RUN, "trivial", form, LIMITS, CONTEXT.to_json())
    framing.send(sock, Kind.JOB, job.encode())
    if form is CodeForm.SOURCE:
        framing.send(sock, Kind.BLOB, _SCRIPT[runtime].encode())
    while True:
        kind, body = receiver.receive(1 << 28)
        if kind is Kind.DONE:
            report = framing.loads(body)
            assert report["status"] == "ok", report
            _FUEL[runtime] = report["fuel"]
            return time.perf_counter() - started_s


def _become_worker(executors: Executors, sock: socket.socket, profile: bool) -> None:
    executors.start_threads()
    window = output_window.OutputWindow(output_window.create())
    if profile:
        _PHASES.spent_s.clear()  # what the parent spent loading the executors
        _PHASES.last_s = time.thread_time()
        Worker.exit = staticmethod(_PHASES.print_and_exit)  # type: ignore[method-assign]
    Worker(sock, window, executors.by_runtime, isolation.measure()).serve()


class Phases:
    """Exclusive CPU time (this thread's: `time.thread_time`, precise even once the worker
    set RLIMIT_CPU, unlike the process clock) of the worker's phases; what no wrapped function
    covers is the guest's own code and wasmtime-py's glue around it."""

    def __init__(self) -> None:
        self.spent_s: dict[str, float] = {}
        self.stack = ["guest and wasmtime glue"]
        self.last_s = time.thread_time()
        self.runs = 0

    def wrap_all(self) -> None:
        from sandbox.micropython import executor as micropython_executor
        from sandbox.micropython.guest import Instance
        from sandbox.micropython.snapshot import Snapshot
        from sandbox.wasm import executor as wasm_executor

        self.wrap(Worker, "next_job", "receive and decode the job")
        self.wrap(Worker, "finish", "encode and send the report")
        self.wrap(Snapshot, "restore", "rewind (write the snapshot back)")
        self.wrap(micropython_executor, "host_call", "host calls, Python side")
        self.wrap(micropython_executor, "host_result_cap", "host calls, Python side")
        self.wrap(Instance, "report", "build the report")
        self.wrap(wasm_executor, "new_store", "new store")
        self.wrap(wasmtime.InstancePre, "instantiate", "instantiate")
        self.wrap(wasmtime.Instance, "exports", "instance exports")
        self.wrap(wasmtime.Func, "__call__", "call main (wasmtime-py + guest)")
        self.wrap(wasm_executor, "_result", "result encode")
        self.wrap(GuestRun, "close", "guest close")
        original = Worker.finish

        def counted(worker: Worker, report: dict[str, object]) -> None:
            self.runs += 1
            original(worker, report)

        Worker.finish = counted  # type: ignore[method-assign]

    def wrap(self, owner: object, name: str, phase: str) -> None:
        inner = getattr(owner, name)

        def timed(*args: object, **kwargs: object) -> object:
            self.switch(phase)
            try:
                return inner(*args, **kwargs)
            finally:
                self.switch(None)

        setattr(owner, name, timed)

    def switch(self, phase: str | None) -> None:
        now_s = time.thread_time()
        current = self.stack[-1]
        self.spent_s[current] = self.spent_s.get(current, 0.0) + now_s - self.last_s
        self.last_s = now_s
        self.stack.append(phase) if phase else self.stack.pop()

    def print_and_exit(self) -> None:
        self.switch(None)
        runs = max(1, self.runs)
        for phase, spent_s in sorted(self.spent_s.items(), key=lambda item: -item[1]):
            print(f"  {phase:<40} {spent_s * 1000 / runs:8.4f} ms/run")
        os._exit(0)


_PHASES = Phases()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2000)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--script", choices=sorted(SCRIPTS), default="trivial")
    args = parser.parse_args()
    _SCRIPT.update(SCRIPTS[args.script])
    if args.profile:
        _PHASES.wrap_all()  # before the interpreter is linked to its host functions
    with tempfile.TemporaryDirectory(prefix="cadenza-phases-") as cache:
        executors = Executors.load([str(r) for r in RUNTIMES], Path(cache))
        for runtime in RUNTIMES:
            cpu_ms, trip_ms = worker_cpu_per_run_ms(executors, runtime, args.runs, args.profile)
            print(
                f"{runtime}: worker CPU {cpu_ms:.3f} ms/run, round trip median {trip_ms:.3f} ms,"
                f" fuel {_FUEL[runtime]}/run"
            )


if __name__ == "__main__":
    main()
