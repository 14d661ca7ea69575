"""Inside a python worker: receive a job, confine, compile, run `main(ctx)`, report; repeat.

A worker serves runs of one tenant only (the engine binds it at its first run, see
`sandbox.warm`) and is recycled by the engine, so nothing a script does reaches another
tenant. Each run gets fresh globals, a fresh decimal context and a reseeded `random`; after
any status but ok/error the worker exits rather than trust its own state. Everything read
from a job and everything sent back is bounded; results are serialised here, under the
run's limits, never in the engine.
"""

from __future__ import annotations

import base64
import decimal
import gc
import json
import marshal
import os
import random
import resource
import socket
import sys
import types
from typing import Any, NoReturn

from RestrictedPython.Guards import (
    full_write_guard,
    guarded_iter_unpack_sequence,
    guarded_unpack_sequence,
)

from sandbox import framing, isolation
from sandbox.python import restricted
from sandbox.errors import ScriptRejected
from sandbox.output_window import OutputWindow
from sandbox.python.scriptapi import Ctx, HostError, Output, to_json_args
from sandbox.warm import REUSABLE_STATUSES

MAX_JOB_BYTES = 8 * 1024 * 1024
MAX_REPLY_BYTES = 1024 * 1024
ERROR_CHARS = 2000


class _Ended(Exception):
    """Raised outside the tenant's code once the run's report is known."""

    def __init__(self, report: dict[str, Any]) -> None:
        super().__init__(report.get("status"))
        self.report = report


class Worker:
    """The job loop of one worker process."""

    def __init__(self, sock: socket.socket, builtins: dict[str, Any], window: OutputWindow) -> None:
        self._sock = sock
        self._builtins = builtins
        self._window = window
        self._output: Output | None = None
        self._reserve: bytearray | None = bytearray(1 << 20)
        self._memory_bytes: int | None = None
        self._cpu_hard_s = 0
        self._cpu_started_s = 0.0

    def serve(self, baseline_vm_bytes: int) -> NoReturn:
        """Wait for a job, set its limits, run it, report; until killed or the socket closes."""
        while True:
            try:
                job = framing.receive(self._sock, MAX_JOB_BYTES)
            except (EOFError, OSError, ValueError):
                self._exit()
            self._limit(job["limits"], baseline_vm_bytes)
            self._finish(self._attempt(job))

    def _limit(self, limits: dict[str, Any], baseline_vm_bytes: int) -> None:
        cpu_s = min(limits.get("cpu_s") or limits["timeout_s"], limits["timeout_s"])
        if self._memory_bytes is None:
            self._memory_bytes = limits["memory_bytes"]
            self._cpu_hard_s = isolation.bind_limits(baseline_vm_bytes, self._memory_bytes, cpu_s)
        elif limits["memory_bytes"] != self._memory_bytes:
            self._exit()  # the engine never does this: a worker's memory limit is fixed
        self._cpu_started_s = isolation.limit_run_cpu(cpu_s, self._cpu_hard_s)
        decimal.setcontext(decimal.Context())
        random.seed()

    def _attempt(self, job: dict[str, Any]) -> dict[str, Any]:
        try:
            return self._run(job, job["limits"])
        except _Ended as ended:
            return ended.report
        except MemoryError:
            self._reserve = None
            return {"status": "memory", "error": "ran out of memory"}

    def _run(self, job: dict[str, Any], limits: dict[str, Any]) -> dict[str, Any]:
        code = self._code(job)
        if job["mode"] == "compile":
            return {"status": "ok"}
        self._window.reset()
        self._output = Output(limits["output_bytes"], self._output_overflow, self._window.append)
        scope = self._globals()
        try:
            exec(code, scope)
            main = scope.get("main")
            if not callable(main):
                return {"status": "error", "error": "the script defines no callable main(ctx)"}
            result = main(Ctx(job["context"], self._call))
            return _result_report(result, limits["result_bytes"])
        except (MemoryError, ScriptRejected):
            raise
        except BaseException as exc:  # the tenant's failure, reported as data
            return {"status": "error", **_describe(exc)}
        finally:
            scope.clear()  # breaks the function <-> globals cycle, frees the run's objects

    def _code(self, job: dict[str, Any]) -> types.CodeType:
        if job.get("code"):
            return marshal.loads(base64.b64decode(job["code"]))
        try:
            code = restricted.compile_script(job["source"])
        except ScriptRejected as exc:
            raise _Ended({"status": "rejected", "error": exc.reason, "line": exc.line}) from None
        except (SyntaxError, ValueError) as exc:
            line = getattr(exc, "lineno", None)
            raise _Ended({"status": "rejected", "error": str(exc), "line": line}) from None
        self._send({"t": "compiled", "code": base64.b64encode(marshal.dumps(code)).decode()})
        return code

    def _globals(self) -> dict[str, Any]:
        assert self._output is not None
        return {
            "__builtins__": self._builtins,
            "__name__": "script",
            "__metaclass__": type,
            "_getattr_": restricted.guarded_getattr,
            "_getitem_": restricted.guarded_getitem,
            "_getiter_": iter,
            "_iter_unpack_sequence_": guarded_iter_unpack_sequence,
            "_unpack_sequence_": guarded_unpack_sequence,
            "_write_": full_write_guard,
            "_inplacevar_": restricted.inplace_var,
            "_print_": self._output.printer(),
        }

    def _call(self, op: str, args: list[Any]) -> Any:
        self._send({"t": "call", "op": op, "args": to_json_args(args)})
        reply = framing.receive(self._sock, MAX_REPLY_BYTES)
        if "error" in reply:
            raise HostError(reply["error"])
        if reply.get("stop"):
            self._exit()
        return reply.get("value")

    def _output_overflow(self) -> NoReturn:
        """Called from inside the tenant's `print`: report and exit there (an exception could
        be caught by the script)."""
        self._finish({"status": "output_limit", "error": "printed more than the output limit"})
        self._exit()

    def _finish(self, report: dict[str, Any]) -> None:
        """Send the run's report; exit unless the worker may serve its tenant's next run."""
        if report["status"] in REUSABLE_STATUSES:
            gc.collect()  # cycles the script made are freed inside its own run
        cpu_total_s = isolation.cpu_used_s()
        report.update(
            t="done",
            cpu_s=cpu_total_s - self._cpu_started_s,
            cpu_total_s=cpu_total_s,
            cpu_limit_s=self._cpu_hard_s,
            peak_memory_bytes=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
            stdout=self._output.text() if self._output else "",
            truncated=bool(self._output and report.get("status") == "output_limit"),
        )
        self._output = None
        self._send(report)
        if report["status"] not in REUSABLE_STATUSES:
            self._exit()

    def _send(self, message: dict[str, Any]) -> None:
        try:
            framing.send(self._sock, message)
        except OSError:
            self._exit()

    @staticmethod
    def _exit() -> NoReturn:
        sys.stdout.flush()
        os._exit(0)


def _result_report(result: Any, limit_bytes: int) -> dict[str, Any]:
    try:
        text = json.dumps(result, allow_nan=False, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError) as exc:
        kind = type(result).__name__
        return {"status": "error", "error": f"main() returned a {kind}, which is not JSON: {exc}"}
    size = len(text.encode())
    if size > limit_bytes:
        message = f"main() returned {size} bytes of JSON (limit {limit_bytes} bytes)"
        return {"status": "output_limit", "error": message}
    return {"status": "ok", "result_json": text}


def _describe(exc: BaseException) -> dict[str, Any]:
    """`{"error": "ZeroDivisionError: division by zero", "line": 3}` for the script's frame."""
    line = None
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == restricted.SCRIPT_FILENAME:
            line = tb.tb_lineno
        tb = tb.tb_next
    try:
        text = str(exc)
    except Exception:
        text = "(unprintable message)"
    message = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    return {"error": message[:ERROR_CHARS], "line": line}
